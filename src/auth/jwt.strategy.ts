import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import jwt from 'jsonwebtoken';
import { ExtractJwt, Strategy, type SecretOrKeyProvider } from 'passport-jwt';
import type { AuthConfig, ClaimMapping } from '../config/auth.config';
import { AUTH_CONFIG } from '../config/config.module';
import { callerFromClaims } from './caller-claims';
import { JWKS_KEY_SET, JwksKeySet } from './jwks-key-set';
import type { TokenVerdict } from './token-verdict';

/** The key of the verification, parsed once at start (src/config/jwt-verification.ts), or the provider's key set. */
function keyOptions(
  { verification }: AuthConfig,
  keySet: JwksKeySet | null,
): { secretOrKey: Buffer } | { secretOrKeyProvider: SecretOrKeyProvider } {
  if (verification.mode !== 'jwks') {
    // passport-jwt hands the key to jsonwebtoken, which accepts a KeyObject; its typings only know string | Buffer.
    return { secretOrKey: verification.key as unknown as Buffer };
  }
  if (!keySet) throw new Error('JWKS mode needs the key set of AuthModule');
  return {
    // The contract chooses keys by kid: a token without one names no key, whatever the set holds.
    secretOrKeyProvider: (_request, rawToken: string, done) => {
      const kid = (jwt.decode(rawToken, { complete: true })?.header as { kid?: unknown } | undefined)?.kid;
      if (typeof kid !== 'string') return done(new Error('The token names no key (kid)'));
      keySet.keyFor(kid).then(
        // jsonwebtoken accepts the KeyObject; passport-jwt's typings only know string | Buffer.
        (key) => done(null, key as unknown as Buffer),
        (error: Error) => done(error),
      );
    },
  };
}

@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  private readonly claims: ClaimMapping;

  constructor(@Inject(AUTH_CONFIG) config: AuthConfig, @Inject(JWKS_KEY_SET) keySet: JwksKeySet | null) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      ...keyOptions(config, keySet),
      // The allow-list is what stops `alg: none` and HS256-signed-with-the-public-key tokens.
      algorithms: config.algorithms,
      issuer: config.issuer,
      audience: config.audience,
      ignoreExpiration: false,
      jsonWebTokenOptions: { clockTolerance: config.clockToleranceSeconds },
    });
    this.claims = config.claims;
  }

  /** Called with the claims of a token whose signature, algorithm, `exp`, `nbf`, `iss` and `aud` checked out. */
  validate(claims: Record<string, unknown>): TokenVerdict {
    // jsonwebtoken only checks `exp` when present; the contract requires it.
    if (typeof claims.exp !== 'number') {
      return { kind: 'invalid-token', reason: 'The access token has no expiry (exp)' };
    }
    const check = callerFromClaims(claims, this.claims);
    return check.ok ? { kind: 'caller', caller: check.caller } : { kind: 'no-usable-identity', reason: check.reason };
  }
}
