import { HttpException, Injectable, UnauthorizedException } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
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

@Injectable()
export class JwtAuthGuard extends AuthGuard('jwt') {
  override handleRequest<TUser = Caller>(error: unknown, caller: TUser | false, info: unknown): TUser {
    if (error instanceof HttpException) throw error;
    if (error || !caller) throw new UnauthorizedException(describeRejection(error ?? info));
    return caller;
  }
}
