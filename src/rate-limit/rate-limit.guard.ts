import { CanActivate, ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { callerOf } from '../auth/token-verdict';
import { problemOf, ProblemException } from '../common/problem/problem-details';
import { RATE_LIMITER } from './rate-limit.module';

const SKIP_RATE_LIMIT = 'skipRateLimit';

/** For probes that an orchestrator calls on its own schedule. */
export const SkipRateLimit = (): MethodDecorator & ClassDecorator => SetMetadata(SKIP_RATE_LIMIT, true);

/** RATE_LIMIT_PER_MINUTE requests per caller, counted by verified member id (members behind one address do not share
 * a budget) and by client address otherwise. */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiterAbstract | null,
    private readonly reflector: Reflector,
  ) {}

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
}
