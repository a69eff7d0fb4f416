import { Injectable } from '@nestjs/common';
import { AuthGuard, type AuthGuardAuthenticateOptions } from '@nestjs/passport';
import { KeySetUnavailableError } from './jwks-key-set';
import type { TokenVerdict } from './token-verdict';

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

/** Runs first on every request and rejects nothing: it records what the token established (`request.tokenVerdict`),
 * so that the rate limit can count a caller by member id; RolesGuard answers 401 and 403. */
@Injectable()
export class JwtAuthGuard extends AuthGuard('jwt') {
  override getAuthenticateOptions(): AuthGuardAuthenticateOptions {
    // Where the verdict is kept (see token-verdict.ts); passport's default would be `request.user`.
    return { property: 'tokenVerdict' };
  }

  /** Passport's outcome: a verdict from JwtStrategy.validate, or why verification failed. */
  override handleRequest<TVerdict = TokenVerdict>(error: unknown, verdict: TVerdict | false, info: unknown): TVerdict {
    if (!error && verdict) return verdict;
    if (info instanceof KeySetUnavailableError) {
      return { kind: 'unverifiable', reason: info.message } satisfies TokenVerdict as TVerdict;
    }
    return { kind: 'invalid-token', reason: describeRejection(error ?? info) } satisfies TokenVerdict as TVerdict;
  }
}
