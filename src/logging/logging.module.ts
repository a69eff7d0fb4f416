import { Module } from '@nestjs/common';
import { LoggerModule, type Params } from 'nestjs-pino';
import pino from 'pino';
import type { AppConfig } from '../config/app.config';
import { activeTraceId } from '../observability/tracing';
import { APP_CONFIG } from '../config/config.module';

/**
 * One line per request (CONTRACT §10), with the id Fastify chose for it
 * (middie hands it to pino-http as `req.id`), method, URL, client address,
 * status and time. Headers are never logged, and with them no credential.
 */
const serializers = {
  req: (request: { id: unknown; method: string; url: string; remoteAddress?: string }) => ({
    id: request.id,
    method: request.method,
    url: request.url,
    remoteAddress: request.remoteAddress,
  }),
  res: (response: { statusCode: number }) => ({ statusCode: response.statusCode }),
  // pino-http makes an Error for every 5xx; its stack says nothing (the failure itself is logged with its
  // cause by the problem filter), and a storm of 503s must not become a storm of stacks.
  err: (error: { type?: string; message?: string }) => ({ type: error.type, message: error.message }),
};

function loggingParams(config: AppConfig): Params {
  const options = {
    level: config.logLevel,
    serializers,
    // Every line written while a request is being served names its trace (CONTRACT §12).
    mixin: () => {
      const traceId = activeTraceId();
      return traceId ? { trace_id: traceId } : {};
    },
    customLogLevel: (_request: unknown, response: { statusCode: number }, error?: Error) =>
      error || response.statusCode >= 500 ? 'error' : response.statusCode >= 400 ? 'warn' : 'info',
  } as const;
  if (config.nodeEnv === 'development') {
    // For a person at a terminal; every other environment writes JSON lines for the log pipeline.
    return {
      pinoHttp: { ...options, transport: { target: 'pino-pretty', options: { singleLine: true } } },
    };
  }
  // Written off the event loop, batched while a write is pending; pino flushes it when the process exits.
  return { pinoHttp: [options, pino.destination({ dest: 1, sync: false })] };
}

@Module({
  imports: [LoggerModule.forRootAsync({ inject: [APP_CONFIG], useFactory: loggingParams })],
})
export class LoggingModule {}
