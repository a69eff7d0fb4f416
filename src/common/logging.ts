import { Inject, Injectable, LoggerService, Module } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import type { Request, Response } from 'express';
import pino, { type Logger } from 'pino';
import pinoHttp from 'pino-http';
import { appConfig } from '../config/app.config';
import { requestIdOf } from './request-id';

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
 * One JSON line per request (CONTRACT §10) with its X-Request-Id, method,
 * URL, status and time; the Authorization header and cookies are redacted.
 */
export function requestLogging(logger: Logger) {
  return pinoHttp({
    logger,
    // The id is chosen once, by the request-id middleware that runs before this one.
    genReqId: (_request: Request, response: Response) => requestIdOf(response),
    // Enough to trace a request; headers stay out of the log (and with them any credential).
    serializers: {
      req: (request: { id: string; method: string; url: string; remoteAddress: string }) => ({
        id: request.id,
        method: request.method,
        url: request.url,
        remoteAddress: request.remoteAddress,
      }),
      res: (response: { statusCode: number }) => ({ statusCode: response.statusCode }),
    },
    customLogLevel: (_request, response, error) =>
      error || response.statusCode >= 500 ? 'error' : response.statusCode >= 400 ? 'warn' : 'info',
  });
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
