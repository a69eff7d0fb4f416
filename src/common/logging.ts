import { Inject, Injectable, LoggerService, Module } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import type { FastifyReply, FastifyRequest } from 'fastify';
import pino, { type Logger } from 'pino';
import { appConfig } from '../config/app.config';

export const PINO = Symbol('pino');

/** Where credentials can appear in a logged request or response. */
const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
];

/** Nest's own messages (start-up, errors from the problem filter) as JSON lines through pino. */
@Injectable()
export class PinoLoggerService implements LoggerService {
  constructor(@Inject(PINO) private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    this.logger.info({ context }, String(message));
  }

  error(message: unknown, trace?: string, context?: string): void {
    this.logger.error({ context, trace }, String(message));
  }

  warn(message: unknown, context?: string): void {
    this.logger.warn({ context }, String(message));
  }

  debug(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }

  verbose(message: unknown, context?: string): void {
    this.logger.trace({ context }, String(message));
  }

  fatal(message: unknown, context?: string): void {
    this.logger.fatal({ context }, String(message));
  }
}

/**
 * One JSON line per request (CONTRACT §10), written when the response is
 * finished (Fastify's `onResponse` hook), with its X-Request-Id, method, URL,
 * client address, status and time. Headers stay out of the log, and with them
 * any credential.
 */
export function requestLogger(logger: Logger) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const status = reply.statusCode;
    logger[status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info'](
      {
        req: { id: request.id, method: request.method, url: request.url, remoteAddress: request.ip },
        res: { statusCode: status },
        responseTime: Math.round(reply.elapsedTime),
      },
      'request completed',
    );
  };
}

@Module({
  providers: [
    {
      provide: PINO,
      inject: [appConfig.KEY],
      useFactory: (config: ConfigType<typeof appConfig>): Logger =>
        pino(
          { level: config.logLevel, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } },
          // Written off the event loop, batched while a write is pending; pino flushes it when the process exits.
          // Synchronous writes to stdout were a fifth of the busy time under load.
          pino.destination({ dest: 1, sync: false }),
        ),
    },
    PinoLoggerService,
  ],
  exports: [PINO, PinoLoggerService],
})
export class LoggingModule {}
