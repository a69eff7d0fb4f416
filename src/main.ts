import 'dotenv/config';
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { APP_OPTIONS, configureApp } from './bootstrap/configure-app';
import { shutDownGracefully } from './bootstrap/graceful-shutdown';
import { createHttpAdapter } from './bootstrap/http-adapter';
import { startupBanner } from './bootstrap/startup-banner';
import { PinoLoggerService } from './common/logging';
import { appConfig, type AppConfig } from './config/app.config';
import { authConfig, type AuthConfig } from './config/auth.config';
import { InvalidConfigurationError, validateEnvironment } from './config/environment';

async function bootstrap(): Promise<void> {
  // Checked before Nest starts so that a bad variable is reported by name, not as a stack trace.
  validateEnvironment(process.env);
  const app = await NestFactory.create<NestFastifyApplication>(AppModule, createHttpAdapter(), {
    ...APP_OPTIONS,
    abortOnError: false,
  });
  await configureApp(app);
  const config = app.get<AppConfig>(appConfig.KEY);
  shutDownGracefully(app, config.shutdownGraceMs, app.get(PinoLoggerService));
  // Every interface, as a container needs; Fastify alone would listen on localhost only.
  await app.listen(config.port, '0.0.0.0');
  if (config.nodeEnv !== 'production') {
    console.log(`\n${startupBanner(`http://localhost:${config.port}`, app.get<AuthConfig>(authConfig.KEY))}\n`);
  }
}

bootstrap().catch((error: unknown) => {
  console.error(error instanceof InvalidConfigurationError ? error.message : error);
  process.exit(1);
});
