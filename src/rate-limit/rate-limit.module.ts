import { Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { AppConfig } from '../config/app.config';
import { APP_CONFIG } from '../config/config.module';

/** The limiter the guard counts with; null when RATE_LIMIT_PER_MINUTE is 0. */
export const RATE_LIMITER = Symbol('RATE_LIMITER');
/** The Redis connection the counts are shared through; null without REDIS_URL. */
const RATE_LIMIT_REDIS = Symbol('RATE_LIMIT_REDIS');

const WINDOW_SECONDS = 60;
/** Redis reconnects this often at most while it is away, so that sharing resumes within seconds of its return. */
const REDIS_RECONNECT_MAX_MS = 1000;

function connect(url: string): Redis {
  const logger = new Logger('RateLimit');
  let reachable = true;
  const redis = new Redis(url, {
    // Fail a count at once while disconnected, so that the insurance limiter answers instead of a queue.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(attempt * 100, REDIS_RECONNECT_MAX_MS),
  });
  // Logged once per outage, not once per request.
  redis.on('error', (error: Error) => {
    if (!reachable) return;
    reachable = false;
    logger.warn(`Redis is unreachable (${error.message}); each instance counts rate limits on its own`);
  });
  redis.on('ready', () => {
    if (reachable) return;
    reachable = true;
    logger.log('Redis is back; rate limits are shared between instances again');
  });
  return redis;
}

/**
 * Where the rate limit's counts are kept. With REDIS_URL, in Redis, so a
 * caller's limit holds across all instances together; while Redis cannot be
 * reached each instance counts on its own (rate-limiter-flexible's insurance
 * limiter; never a 5xx), and sharing resumes when the client reconnects.
 * Without it, in this instance's memory.
 */
@Module({
  providers: [
    {
      provide: RATE_LIMIT_REDIS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): Redis | null =>
        config.rateLimitPerMinute > 0 && config.redisUrl ? connect(config.redisUrl) : null,
    },
    {
      provide: RATE_LIMITER,
      inject: [APP_CONFIG, RATE_LIMIT_REDIS],
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
  ],
  exports: [RATE_LIMITER],
})
export class RateLimitModule implements OnApplicationShutdown {
  constructor(@Inject(RATE_LIMIT_REDIS) private readonly redis: Redis | null) {}

  onApplicationShutdown(): void {
    this.redis?.disconnect();
  }
}
