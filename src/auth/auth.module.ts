import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { Clock } from '../common/time/clock';
import type { AuthConfig } from '../config/auth.config';
import { AUTH_CONFIG } from '../config/config.module';
import { JWKS_KEY_SET, JwksKeySet } from './jwks-key-set';
import { JwtStrategy } from './jwt.strategy';

@Module({
  imports: [PassportModule],
  providers: [
    {
      provide: JWKS_KEY_SET,
      inject: [AUTH_CONFIG, Clock],
      useFactory: ({ verification }: AuthConfig, clock: Clock): JwksKeySet | null =>
        verification.mode === 'jwks' ? JwksKeySet.fromUri(verification.jwksUri, clock) : null,
    },
    JwtStrategy,
  ],
  exports: [JWKS_KEY_SET],
})
export class AuthModule {}
