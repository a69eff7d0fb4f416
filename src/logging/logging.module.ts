import { Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
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

/** Lines wait in memory until this much is pending, or for FLUSH_INTERVAL_MS at most. */
const BUFFERED_BYTES = 4096;
const FLUSH_INTERVAL_MS = 1000;

/**
 * Standard output for the JSON lines. Written off the event loop, and
 * buffered: one write (and one hand-off to libuv's thread pool) per 4 KB —
 * about fifteen requests — rather than per request, which under load was a
 * write syscall, a thread wake-up and a completion event for every line
 * (docs/BENCHMARKS.md). Nothing waits longer than a second; pino writes what
 * is pending when the process exits, and shutdown flushes it first.
 */
@Injectable()
export class LogDestination implements OnApplicationShutdown {
  readonly stream = pino.destination({ dest: 1, sync: false, minLength: BUFFERED_BYTES });
  private readonly timer = setInterval(() => this.stream.flush(), FLUSH_INTERVAL_MS).unref();

  onApplicationShutdown(): void {
    clearInterval(this.timer);
    this.stream.flushSync();
  }
}

function loggingParams(config: AppConfig, destination: LogDestination): Params {
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
  return { pinoHttp: [options, destination.stream] };
}

@Module({
  imports: [
    LoggerModule.forRootAsync({
      providers: [LogDestination],
      inject: [APP_CONFIG, LogDestination],
      useFactory: loggingParams,
    }),
  ],
})
export class LoggingModule {}
