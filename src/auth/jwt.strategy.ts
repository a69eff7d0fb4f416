import { ForbiddenException, Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { passportJwtSecret } from 'jwks-rsa';
import { ExtractJwt, Strategy, type SecretOrKeyProvider } from 'passport-jwt';
import { authConfig, type AuthConfig } from '../config/auth.config';
import { callerFromClaims } from './caller-claims';
import type { Caller } from './role';

function keyOptions(config: AuthConfig): { secretOrKey: string } | { secretOrKeyProvider: SecretOrKeyProvider } {
  switch (config.keySource.mode) {
    case 'secret':
      return { secretOrKey: config.keySource.secret };
    case 'public-key':
      return { secretOrKey: config.keySource.publicKey };
    case 'jwks':
      return {
        secretOrKeyProvider: passportJwtSecret({
          jwksUri: config.keySource.jwksUri,
          cache: true,
          rateLimit: true,
          // An unknown `kid` triggers a refetch; the limit keeps forged kids from hammering the issuer.
          jwksRequestsPerMinute: 10,
        }),
      };
  }
}

@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(@Inject(authConfig.KEY) config: AuthConfig) {
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

  validate(claims: Record<string, unknown>): Caller {
    // jsonwebtoken only checks `exp` when present; the contract requires it.
    if (typeof claims.exp !== 'number') {
      throw new UnauthorizedException('The access token has no expiry (exp)');
    }
    const check = callerFromClaims(claims);
    if (!check.ok) {
      throw new ForbiddenException(check.reason);
    }
    return check.caller;
  }
}
