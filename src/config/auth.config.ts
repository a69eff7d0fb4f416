import { jwtVerificationOf, type EnvironmentVariables } from './environment';
import { defaultAlgorithms, type JwtAlgorithm, type JwtVerification } from './jwt-verification';

export interface AuthConfig {
  /** The mode, its parsed key and the algorithm family it allows (src/config/jwt-verification.ts). */
  verification: JwtVerification;
  /** The only algorithms a token may be signed with; never `none`, never HS* with a public key. */
  algorithms: JwtAlgorithm[];
  issuer?: string;
  audience?: string;
  clockToleranceSeconds: number;
}

export function toAuthConfig(env: EnvironmentVariables): AuthConfig {
  const verification = jwtVerificationOf(env);
  return {
    verification,
    algorithms: env.JWT_ALGORITHMS ?? defaultAlgorithms(verification),
    issuer: env.JWT_ISSUER,
    audience: env.JWT_AUDIENCE,
    clockToleranceSeconds: env.JWT_CLOCK_TOLERANCE_S,
  };
}
