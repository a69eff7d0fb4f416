import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import jwt from 'jsonwebtoken';
import { passportJwtSecret } from 'jwks-rsa';
import { ExtractJwt, Strategy, type SecretOrKeyProvider } from 'passport-jwt';
import type { AuthConfig } from '../config/auth.config';
import { AUTH_CONFIG } from '../config/config.module';
import { callerFromClaims } from './caller-claims';
import type { TokenVerdict } from './token-verdict';

/** The key of the verification, parsed once at start (src/config/jwt-verification.ts), or the issuer's key set. */
function keyOptions({
  verification,
}: AuthConfig): { secretOrKey: Buffer } | { secretOrKeyProvider: SecretOrKeyProvider } {
  if (verification.mode !== 'jwks') {
    // passport-jwt hands the key to jsonwebtoken, which accepts a KeyObject; its typings only know string | Buffer.
    return { secretOrKey: verification.key as unknown as Buffer };
  }
  const keyFor = passportJwtSecret({
    jwksUri: verification.jwksUri,
    cache: true,
    rateLimit: true,
    // An unknown `kid` triggers a refetch; the limit keeps forged kids from hammering the issuer.
    jwksRequestsPerMinute: 10,
  });
  return {
    // jwks-rsa would fall back to the only key of the set for a token without `kid`; the contract chooses keys by kid.
    secretOrKeyProvider: (request, rawToken: string, done) => {
      const kid = (jwt.decode(rawToken, { complete: true })?.header as { kid?: unknown } | undefined)?.kid;
      if (typeof kid !== 'string') return done(new Error('The token names no key (kid)'));
      keyFor(request as Parameters<typeof keyFor>[0], rawToken, done);
    },
  };
}

@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(@Inject(AUTH_CONFIG) config: AuthConfig) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      ...keyOptions(config),
      // The allow-list is what stops `alg: none` and HS256-signed-with-the-public-key tokens.
      algorithms: config.algorithms,
      issuer: config.issuer,
      audience: config.audience,
      ignoreExpiration: false,
      jsonWebTokenOptions: { clockTolerance: config.clockToleranceSeconds },
    });
  }

  /** Called with the claims of a token whose signature, algorithm, `exp`, `nbf`, `iss` and `aud` checked out. */
  validate(claims: Record<string, unknown>): TokenVerdict {
    // jsonwebtoken only checks `exp` when present; the contract requires it.
    if (typeof claims.exp !== 'number') {
      return { kind: 'invalid-token', reason: 'The access token has no expiry (exp)' };
    }
    const check = callerFromClaims(claims);
    return check.ok ? { kind: 'caller', caller: check.caller } : { kind: 'no-usable-identity', reason: check.reason };
  }
}
