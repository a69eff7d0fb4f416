import { Logger, type Provider } from '@nestjs/common';
import { Redis } from 'ioredis';
import type { AppConfig } from '../config/app.config';
import { APP_CONFIG } from '../config/config.module';

/** The Redis connection callers' limits are shared through; null without REDIS_URL. */
export const CALLER_LIMITS_REDIS = Symbol('CALLER_LIMITS_REDIS');

/** Redis reconnects this often at most while it is away, so that sharing resumes within seconds of its return. */
const REDIS_RECONNECT_MAX_MS = 1000;

function connect(url: string): Redis {
  const logger = new Logger('RateLimit');
  let reachable = true;
  const redis = new Redis(url, {
    // Fail a command at once while disconnected, so that the instance's own count answers instead of a queue.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(attempt * 100, REDIS_RECONNECT_MAX_MS),
  });
  // Logged once per outage, not once per request.
  redis.on('error', (error: Error) => {
    if (!reachable) return;
    reachable = false;
    logger.warn(
      `Redis is unreachable (${error.message}); each instance counts rate limits and running exports on its own`,
    );
  });
  redis.on('ready', () => {
    if (reachable) return;
    reachable = true;
    logger.log('Redis is back; rate limits and running exports are shared between instances again');
  });
  return redis;
}

export const callerLimitsRedis: Provider = {
  provide: CALLER_LIMITS_REDIS,
  inject: [APP_CONFIG],
  useFactory: (config: AppConfig): Redis | null => (config.redisUrl ? connect(config.redisUrl) : null),
};
