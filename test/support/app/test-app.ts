import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import type { App } from 'supertest/types';
import { DataSource } from 'typeorm';
import { getMetadataStorage } from 'class-validator';
import { AppModule } from '../../../src/app.module';
import { EnvironmentVariables } from '../../../src/config/environment-variables';
import type { AppConfig } from '../../../src/config/app.config';
import { APP_CONFIG } from '../../../src/config/config.module';
import { APP_OPTIONS, configureApp } from '../../../src/bootstrap/configure-app';
import { createHttpAdapter } from '../../../src/bootstrap/http-adapter';
import { startServiceProcess, type ServiceProcess } from '../../../launchers/service-process';

export type { ServiceProcess };

export const TEST_JWT_SECRET = 'test-secret-for-the-e2e-suites-0123456789';
export const TEST_ISSUER = 'https://id.tickets.test/';
export const TEST_AUDIENCE = 'orders-api';

/** The seal key of the access records the suites make: 32 bytes, as ACCESS_RECORD_SEAL_KEY takes them in base64. */
export const TEST_SEAL_KEY = Buffer.alloc(32, 21);

/** The environment every e2e app starts from; a suite overrides what it tests. */
export const BASE_TEST_ENVIRONMENT: Record<string, string> = {
  NODE_ENV: 'test',
  DB_TYPE: 'sqlite',
  SQLITE_PATH: ':memory:',
  JWT_SECRET: TEST_JWT_SECRET,
  JWT_ISSUER: TEST_ISSUER,
  JWT_AUDIENCE: TEST_AUDIENCE,
  ACCESS_RECORD_SEAL_KEY: TEST_SEAL_KEY.toString('base64'),
  APP_TIMEZONE: 'Asia/Seoul',
  LOG_LEVEL: 'silent',
  // Suites run in parallel; the metrics suite gives its application a port of its own.
  METRICS_PORT: '0',
};

/** The service as a process of its own, on the test environment, logging what a suite may read. */
export const startTestService = (
  environment: Record<string, string>,
  options?: Parameters<typeof startServiceProcess>[1],
): Promise<ServiceProcess> =>
  startServiceProcess({ ...BASE_TEST_ENVIRONMENT, LOG_LEVEL: 'info', ...environment }, options);

/** Every variable the service reads, as its environment class declares them, so that a new one is cleared too. */
const SERVICE_VARIABLES = [
  ...new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(EnvironmentVariables, '', true, false)
      .map(({ propertyName }) => propertyName),
  ),
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
 * `providers` replaces a provider's value, for a limit too large to reach in a test.
 */
export async function startTestApp(
  environment: Record<string, string | undefined>,
  providers: ReadonlyArray<{ token: symbol; value: unknown }> = [],
): Promise<TestApp> {
  for (const name of SERVICE_VARIABLES) delete process.env[name];
  Object.assign(process.env, { ...BASE_TEST_ENVIRONMENT, ...environment });
  for (const [name, value] of Object.entries(environment)) if (value === undefined) delete process.env[name];

  const builder = Test.createTestingModule({ imports: [AppModule.forRoot()] });
  for (const { token, value } of providers) builder.overrideProvider(token).useValue(value);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication<NestFastifyApplication>(
    createHttpAdapter(moduleRef.get<AppConfig>(APP_CONFIG).trustProxy),
    {
      ...APP_OPTIONS,
      logger: false,
    },
  );
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
