import { Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { LoggerModule, type Params } from 'nestjs-pino';
import pino from 'pino';
import type { AppConfig } from '../config/app.config';
import { activeTraceId } from '../observability/tracing';
import { requestLineSerializers } from './request-log';
import { APP_CONFIG } from '../config/config.module';

/** Lines wait in memory until this much is pending, or for FLUSH_INTERVAL_MS at most. */
const BUFFERED_BYTES = 4096;
const FLUSH_INTERVAL_MS = 1000;

/** Standard output for the JSON lines. */
@Injectable()
class LogDestination implements OnApplicationShutdown {
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
    serializers: requestLineSerializers,
    // Every line written while a request is being served names its trace.
    mixin: () => {
      const traceId = activeTraceId();
      return traceId ? { trace_id: traceId } : {};
    },
    // The serializers take Fastify's objects as they are, not pino-http's wrapped Node request.
    wrapSerializers: false,
  } as const;
  // nestjs-pino is the application's logger; its per-request middleware is not mounted, the request line comes from a
  // Fastify hook instead (request-log.ts).
  const forRoutes: Params['forRoutes'] = [];
  if (config.nodeEnv === 'development') {
    // For a person at a terminal; every other environment writes JSON lines for the log pipeline.
    return {
      pinoHttp: { ...options, transport: { target: 'pino-pretty', options: { singleLine: true } } },
      forRoutes,
    };
  }
  return { pinoHttp: [options, destination.stream], forRoutes };
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
