import { ExecutionContext, HttpException, Injectable, UnauthorizedException } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import type { Caller } from './role';

/** Names what was wrong with the token without echoing it or the verifier's internals. */
function describeRejection(info: unknown): string {
  const name = info instanceof Error ? info.name : undefined;
  switch (name) {
    case 'TokenExpiredError':
      return 'The access token has expired';
    case 'NotBeforeError':
      return 'The access token is not valid yet (nbf)';
    case 'JsonWebTokenError':
      return 'The access token is invalid';
    default:
      return info instanceof Error && /auth token/i.test(info.message)
        ? 'A bearer access token is required'
        : 'The access token is invalid';
  }
}

const failures = new WeakMap<FastifyRequest, HttpException>();

/** Why the request's token was not accepted, for {@link RolesGuard} to answer with on a protected route. */
export function authenticationFailureOf(request: FastifyRequest): HttpException | undefined {
  return failures.get(request);
}

/**
 * Runs first, on every request: establishes the caller from a valid token, or
 * notes why there is none. It rejects nothing itself, so that the rate limit
 * that follows can count a caller by member id when there is one and by
 * address otherwise; protected routes refuse in {@link RolesGuard}.
 */
@Injectable()
export class JwtAuthGuard extends AuthGuard('jwt') {
  override async canActivate(context: ExecutionContext): Promise<boolean> {
    try {
      await (super.canActivate(context) as Promise<boolean>);
    } catch (error) {
      const request = context.switchToHttp().getRequest<FastifyRequest>();
      failures.set(
        request,
        error instanceof HttpException ? error : new UnauthorizedException(describeRejection(error)),
      );
    }
    return true;
  }

  override handleRequest<TUser = Caller>(error: unknown, caller: TUser | false, info: unknown): TUser {
    if (error instanceof HttpException) throw error;
    if (error || !caller) throw new UnauthorizedException(describeRejection(error ?? info));
    return caller;
  }
}
