import type { EnvironmentVariables } from './environment-variables';
import { readTrustedProxies, type ProxyTrust } from './trusted-proxies';

/** Signs page links where no secret is configured: development and tests only (refused with NODE_ENV=production). */
const DEVELOPMENT_PAGE_LINK_SECRET = 'development-only-page-link-secret-not-for-production';

export interface AppConfig {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  timeZone: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  rateLimitPerMinute: number;
  exportsPerCaller: number;
  /** Where rate limits and running exports are shared between instances; each instance counts alone without it. */
  redisUrl?: string;
  corsOrigins: string[];
  /** Which proxies name the client in `X-Forwarded-For` (rate limits per client, logs); none when absent. */
  trustProxy?: ProxyTrust;
  /** Signs and checks the continuations of page links. */
  pageLinkSecret: string;
  shutdownGraceMs: number;
  shutdownDelayMs: number;
  /** Whether the Swagger UI and the OpenAPI document (`/docs`, `/docs-json`, `/docs-yaml`) are served. */
  docsEnabled: boolean;
  /** `0`: no metrics listener. */
  metricsPort: number;
  /** Traces are exported here when set. */
  otlpEndpoint?: string;
}

export function toAppConfig(env: EnvironmentVariables): AppConfig {
  return {
    nodeEnv: env.NODE_ENV,
    port: env.PORT,
    timeZone: env.APP_TIMEZONE,
    logLevel: env.LOG_LEVEL,
    rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
    exportsPerCaller: env.EXPORTS_PER_CALLER,
    redisUrl: env.REDIS_URL,
    corsOrigins: env.CORS_ORIGINS,
    trustProxy: readTrustedProxies(env.TRUST_PROXY).trust,
    pageLinkSecret: env.PAGE_LINK_SECRET ?? DEVELOPMENT_PAGE_LINK_SECRET,
    shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
    shutdownDelayMs: env.SHUTDOWN_DELAY_MS,
    docsEnabled: env.DOCS_ENABLED,
    metricsPort: env.METRICS_PORT,
    otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT,
  };
}
