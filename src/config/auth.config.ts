import { jwtVerificationOf } from './environment';
import type { EnvironmentVariables } from './environment-variables';
import { defaultAlgorithms, type JwtAlgorithm, type JwtVerification } from './jwt-verification';

export interface AuthConfig {
  /** The mode, its parsed key and the algorithm family it allows (src/config/jwt-verification.ts). */
  verification: JwtVerification;
  /** The only algorithms a token may be signed with; never `none`, never HS* with a public key. */
  algorithms: JwtAlgorithm[];
  issuer?: string;
  audience?: string;
  clockToleranceSeconds: number;
  /** Where the member id and the roles are read from, and which role values select each variant. */
  claims: ClaimMapping;
}

export interface ClaimMapping {
  memberId: string;
  roles: string[];
  adminRoles: string[];
  userRoles: string[];
}

export function toAuthConfig(env: EnvironmentVariables): AuthConfig {
  const verification = jwtVerificationOf(env);
  return {
    verification,
    algorithms: env.JWT_ALGORITHMS ?? defaultAlgorithms(verification),
    issuer: env.JWT_ISSUER,
    audience: env.JWT_AUDIENCE,
    clockToleranceSeconds: env.JWT_CLOCK_TOLERANCE_S,
    claims: {
      memberId: env.JWT_MEMBER_ID_CLAIM,
      roles: env.JWT_ROLES_CLAIM,
      adminRoles: env.JWT_ADMIN_ROLES,
      userRoles: env.JWT_USER_ROLES,
    },
  };
}
