import { DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthModule } from './auth/auth.module';
import { databaseProblemOf } from './bootstrap/database-problems';
import { JwtAuthGuard } from './auth/jwt-auth.guard';
import { LifecycleModule } from './lifecycle/graceful-shutdown';
import { ProblemsModule } from './common/problem/problems.module';
import { ClockModule } from './common/time/clock.module';
import { RateLimitGuard } from './rate-limit/rate-limit.guard';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { configModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health/health.module';
import { LoggingModule } from './logging/logging.module';
import { ObservabilityModule } from './observability/observability.module';
import { OrdersModule } from './orders/orders.module';

@Module({})
export class AppModule {
  /** Assembled when called, so that the configuration is validated from the environment of that moment. */
  static forRoot(): DynamicModule {
    return {
      module: AppModule,
      imports: [
        configModule(),
        ClockModule,
        ProblemsModule.forRoot([databaseProblemOf]),
        LifecycleModule,
        LoggingModule,
        DatabaseModule,
        ObservabilityModule,
        AuthModule,
        RateLimitModule,
        HealthModule,
        OrdersModule,
      ],
      providers: [
        // In this order: the caller is known before the rate limit counts it.
        { provide: APP_GUARD, useClass: JwtAuthGuard },
        { provide: APP_GUARD, useClass: RateLimitGuard },
      ],
    };
  }
}
