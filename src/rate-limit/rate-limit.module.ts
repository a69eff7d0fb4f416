import { Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { AppConfig } from '../config/app.config';
import { APP_CONFIG } from '../config/config.module';
import { CALLER_LIMITS_REDIS, callerLimitsRedis } from './caller-limits-redis';
import { ExportSlots } from './export-slots';

/** The limiter the guard counts with; null when RATE_LIMIT_PER_MINUTE is 0. */
export const RATE_LIMITER = Symbol('RATE_LIMITER');
const WINDOW_SECONDS = 60;

/** Where the rate limit's counts are kept. */
@Module({
  providers: [
    callerLimitsRedis,
    {
      provide: RATE_LIMITER,
      inject: [APP_CONFIG, CALLER_LIMITS_REDIS],
      useFactory: (config: AppConfig, redis: Redis | null): RateLimiterAbstract | null => {
        if (config.rateLimitPerMinute === 0) return null;
        const budget = { points: config.rateLimitPerMinute, duration: WINDOW_SECONDS };
        const perInstance = new RateLimiterMemory(budget);
        if (!redis) return perInstance;
        return new RateLimiterRedis({
          ...budget,
          storeClient: redis,
          keyPrefix: 'orders-rate-limit',
          insuranceLimiter: perInstance,
        });
      },
    },
    ExportSlots,
  ],
  exports: [RATE_LIMITER, ExportSlots],
})
export class RateLimitModule implements OnApplicationShutdown {
  constructor(@Inject(CALLER_LIMITS_REDIS) private readonly redis: Redis | null) {}

  onApplicationShutdown(): void {
    this.redis?.disconnect();
  }
}
