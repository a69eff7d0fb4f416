import 'dotenv/config';
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { APP_OPTIONS, configureApp } from './bootstrap/configure-app';
import { createHttpAdapter } from './bootstrap/http-adapter';
import { startupBanner } from './bootstrap/startup-banner';
import { toAppConfig, type AppConfig } from './config/app.config';
import type { AuthConfig } from './config/auth.config';
import { ACCESS_RECORDS_CONFIG, APP_CONFIG, AUTH_CONFIG, DATABASE_CONFIG } from './config/config.module';
import type { AccessRecordsConfig } from './config/access-records.config';
import type { DatabaseConfig } from './config/database.config';
import { DEMO_MEMBER_ID } from './orders/seeding/demo-data';
import { InvalidConfigurationError, validateEnvironment } from './config/environment';

async function bootstrap(): Promise<void> {
  // The HTTP server is made before the application that validates the configuration, and must already know which
  // proxies to trust: the same validation, once more, of the same variables.
  const { trustProxy } = toAppConfig(validateEnvironment(process.env));
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(), createHttpAdapter(trustProxy), {
    ...APP_OPTIONS,
    // A bad variable rejects here and is reported below by name, not by Nest's exception handler with a stack trace:
    // nothing buffered is printed unless start-up succeeds (configureApp flushes once pino is the logger).
    abortOnError: false,
    autoFlushLogs: false,
  });
  configureApp(app);
  // Exit 0 once closed, which also lets the asynchronous log destination flush.
  app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
  const config = app.get<AppConfig>(APP_CONFIG);
  // Every interface, as a container needs; Fastify alone would listen on localhost only.
  await app.listen(config.port, '0.0.0.0');
  if (config.nodeEnv !== 'production') {
    console.log(
      `\n${startupBanner(`http://localhost:${config.port}`, config, app.get<AuthConfig>(AUTH_CONFIG), DEMO_MEMBER_ID, {
        embedded: app.get<DatabaseConfig>(DATABASE_CONFIG).type === 'sqlite',
        sealKeyGiven: app.get<AccessRecordsConfig>(ACCESS_RECORDS_CONFIG).sealKey !== undefined,
      })}\n`,
    );
  }
}

bootstrap().catch((error: unknown) => {
  console.error(error instanceof InvalidConfigurationError ? error.message : error);
  process.exit(1);
});
