import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import type { App } from 'supertest/types';
import { DataSource } from 'typeorm';
import { AppModule } from '../../src/app.module';
import { APP_OPTIONS, configureApp } from '../../src/bootstrap/configure-app';
import { createHttpAdapter } from '../../src/bootstrap/http-adapter';

export const TEST_JWT_SECRET = 'test-secret-for-the-e2e-suites-0123456789';
export const TEST_ISSUER = 'https://id.tickets.test/';
export const TEST_AUDIENCE = 'orders-api';

/** The environment every e2e app starts from; a suite overrides what it tests. */
export const BASE_TEST_ENVIRONMENT: Record<string, string> = {
  NODE_ENV: 'test',
  DB_TYPE: 'sqlite',
  SQLITE_PATH: ':memory:',
  JWT_SECRET: TEST_JWT_SECRET,
  JWT_ISSUER: TEST_ISSUER,
  JWT_AUDIENCE: TEST_AUDIENCE,
  APP_TIMEZONE: 'Asia/Seoul',
  LOG_LEVEL: 'silent',
  // Suites run in parallel; the metrics suite gives its application a port of its own.
  METRICS_PORT: '0',
};

const SERVICE_VARIABLES = [
  'PORT',
  'NODE_ENV',
  'DB_TYPE',
  'SQLITE_PATH',
  'DB_HOST',
  'DB_PORT',
  'DB_USERNAME',
  'DB_PASSWORD',
  'DB_DATABASE',
  'DB_POOL_SIZE',
  'DB_QUERY_TIMEOUT_MS',
  'DB_REPLICAS',
  'DB_REPLICA_MAX_LAG_S',
  'JWT_SECRET',
  'JWT_PUBLIC_KEY',
  'JWT_JWKS_URI',
  'JWT_ALGORITHMS',
  'JWT_ISSUER',
  'JWT_AUDIENCE',
  'JWT_CLOCK_TOLERANCE_S',
  'APP_TIMEZONE',
  'LOG_LEVEL',
  'RATE_LIMIT_PER_MINUTE',
  'CORS_ORIGINS',
  'SHUTDOWN_GRACE_MS',
  'SHUTDOWN_DELAY_MS',
  'REDIS_URL',
  'METRICS_PORT',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
];

export interface TestApp {
  app: NestFastifyApplication;
  server: App;
  dataSource: DataSource;
  close(): Promise<void>;
}

/**
 * Starts the real application (all modules, the global filter, Swagger) with
 * exactly the given variables: whatever the shell has set for the service is
 * cleared first, so a developer's environment cannot change a test's outcome.
 */
export async function startTestApp(environment: Record<string, string | undefined>): Promise<TestApp> {
  for (const name of SERVICE_VARIABLES) delete process.env[name];
  Object.assign(process.env, { ...BASE_TEST_ENVIRONMENT, ...environment });
  for (const [name, value] of Object.entries(environment)) if (value === undefined) delete process.env[name];

  const moduleRef = await Test.createTestingModule({ imports: [AppModule.forRoot()] }).compile();
  const app = moduleRef.createNestApplication<NestFastifyApplication>(createHttpAdapter(), {
    ...APP_OPTIONS,
    logger: false,
  });
  configureApp(app);
  await app.init();
  // Fastify registers its routes and plugins when ready; supertest talks to the bare Node server.
  await app.getHttpAdapter().getInstance().ready();
  return {
    app,
    server: app.getHttpServer() as App,
    dataSource: app.get(DataSource),
    close: () => app.close(),
  };
}
