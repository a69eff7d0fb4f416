import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { AuthModule } from './auth/auth.module';
import { JwtAuthGuard } from './auth/jwt-auth.guard';
import { LoggingModule } from './common/logging';
import { RateLimitGuard } from './common/rate-limit.guard';
import { appConfig } from './config/app.config';
import { authConfig } from './config/auth.config';
import { databaseConfig } from './config/database.config';
import { DatabaseDeadlineInterceptor } from './database/database-deadline.interceptor';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health/health.module';
import { OrdersModule } from './orders/orders.module';

@Module({
  imports: [
    // `.env` is read once, by the entry points (main, ormconfig, CLI), so tests never pick up a developer's file.
    ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, load: [appConfig, databaseConfig, authConfig] }),
    LoggingModule,
    DatabaseModule,
    AuthModule,
    HealthModule,
    OrdersModule,
  ],
  providers: [
    // In this order: the caller is known before the rate limit counts it.
    { provide: APP_GUARD, useClass: JwtAuthGuard },
    { provide: APP_GUARD, useClass: RateLimitGuard },
    { provide: APP_INTERCEPTOR, useClass: DatabaseDeadlineInterceptor },
  ],
})
export class AppModule {}
