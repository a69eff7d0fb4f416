import {
  CanActivate,
  ExecutionContext,
  HttpException,
  HttpStatus,
  Inject,
  Injectable,
  SetMetadata,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { callerOf } from '../auth/token-verdict';
import type { AppConfig } from '../config/app.config';
import { APP_CONFIG } from '../config/config.module';

const SKIP_RATE_LIMIT = 'skipRateLimit';

/** For probes that an orchestrator calls on its own schedule. */
export const SkipRateLimit = (): MethodDecorator & ClassDecorator => SetMetadata(SKIP_RATE_LIMIT, true);

/**
 * CONTRACT §10: RATE_LIMIT_PER_MINUTE requests per caller, counted by member
 * id when the token was accepted (members behind one address do not share a
 * budget) and by client address otherwise. Only a verified id counts, or
 * anyone could spend another member's budget. Runs after the global JwtAuthGuard.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly limiter?: RateLimiterMemory;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly reflector: Reflector,
  ) {
    if (config.rateLimitPerMinute > 0) {
      this.limiter = new RateLimiterMemory({ points: config.rateLimitPerMinute, duration: 60 });
    }
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
      http
        .getResponse<FastifyReply>()
        .header('Retry-After', String(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000))));
      throw new HttpException(
        'Too many requests; try again after the time in Retry-After',
        HttpStatus.TOO_MANY_REQUESTS,
      );
    }
  }
}
