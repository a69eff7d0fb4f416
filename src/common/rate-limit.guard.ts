import {
  CanActivate,
  ExecutionContext,
  Inject,
  Injectable,
  Logger,
  OnApplicationShutdown,
  SetMetadata,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import { RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { callerOf } from '../auth/token-verdict';
import type { AppConfig } from '../config/app.config';
import { APP_CONFIG } from '../config/config.module';
import { problemOf, ProblemException } from './problem/problem-details';

const SKIP_RATE_LIMIT = 'skipRateLimit';
const WINDOW_SECONDS = 60;
/** Redis reconnects this often at most while it is away, so that sharing resumes within seconds of its return. */
const REDIS_RECONNECT_MAX_MS = 1000;

/** For probes that an orchestrator calls on its own schedule. */
export const SkipRateLimit = (): MethodDecorator & ClassDecorator => SetMetadata(SKIP_RATE_LIMIT, true);

/**
 * CONTRACT §10, §11: RATE_LIMIT_PER_MINUTE requests per caller, counted by
 * member id when the token was accepted (members behind one address do not
 * share a budget) and by client address otherwise. Only a verified id counts,
 * or anyone could spend another member's budget. Runs after the global JwtAuthGuard.
 *
 * With REDIS_URL the count is kept in Redis, so a caller's limit holds across
 * all instances together. While Redis cannot be reached each instance counts
 * on its own (rate-limiter-flexible's insurance limiter; never a 5xx), and
 * shared counting resumes by itself when the client reconnects.
 */
@Injectable()
export class RateLimitGuard implements CanActivate, OnApplicationShutdown {
  private readonly logger = new Logger('RateLimit');
  private readonly limiter?: RateLimiterAbstract;
  private readonly redis?: Redis;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly reflector: Reflector,
  ) {
    if (config.rateLimitPerMinute === 0) return;
    const budget = { points: config.rateLimitPerMinute, duration: WINDOW_SECONDS };
    const perInstance = new RateLimiterMemory(budget);
    if (!config.redisUrl) {
      this.limiter = perInstance;
      return;
    }
    this.redis = this.connect(config.redisUrl);
    this.limiter = new RateLimiterRedis({
      ...budget,
      storeClient: this.redis,
      keyPrefix: 'orders-rate-limit',
      insuranceLimiter: perInstance,
    });
  }

  private connect(url: string): Redis {
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
      this.logger.warn(`Redis is unreachable (${error.message}); each instance counts rate limits on its own`);
    });
    redis.on('ready', () => {
      if (reachable) return;
      reachable = true;
      this.logger.log('Redis is back; rate limits are shared between instances again');
    });
    return redis;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (
      !this.limiter ||
      this.reflector.getAllAndOverride<boolean>(SKIP_RATE_LIMIT, [context.getHandler(), context.getClass()])
    ) {
      return true;
    }
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const caller = callerOf(request.tokenVerdict);
    const key = caller ? `member:${caller.id}` : `address:${request.ip}`;
    try {
      await this.limiter.consume(key);
      return true;
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      throw new ProblemException({
        ...problemOf('rateLimited'),
        headers: { 'Retry-After': String(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000))) },
      });
    }
  }

  onApplicationShutdown(): void {
    this.redis?.disconnect();
  }
}
