import { createPublicKey } from 'node:crypto';
import { DEVELOPMENT_JWT_SECRET, type EnvironmentVariables, type JwtAlgorithm } from './environment';

export type JwtKeySource =
  { mode: 'secret'; secret: string } | { mode: 'public-key'; publicKey: string } | { mode: 'jwks'; jwksUri: string };

export interface AuthConfig {
  keySource: JwtKeySource;
  /** The only algorithms a token may be signed with; never `none`, never HS* with a public key. */
  algorithms: JwtAlgorithm[];
  issuer?: string;
  audience?: string;
  clockToleranceSeconds: number;
  usesDevelopmentSecret: boolean;
}

function keySourceOf(env: EnvironmentVariables): JwtKeySource {
  if (env.JWT_JWKS_URI) return { mode: 'jwks', jwksUri: env.JWT_JWKS_URI };
  if (env.JWT_PUBLIC_KEY) return { mode: 'public-key', publicKey: env.JWT_PUBLIC_KEY };
  return { mode: 'secret', secret: env.JWT_SECRET ?? DEVELOPMENT_JWT_SECRET };
}

/**
 * Pinned by the key so that a token cannot choose how it is verified (RFC 8725 §3.1):
 * a shared secret only ever verifies HS256, an RSA key RS256, an EC key ES256.
 */
function defaultAlgorithms(keySource: JwtKeySource): JwtAlgorithm[] {
  switch (keySource.mode) {
    case 'secret':
      return ['HS256'];
    case 'public-key':
      return createPublicKey(keySource.publicKey).asymmetricKeyType === 'ec' ? ['ES256'] : ['RS256'];
    case 'jwks':
      return ['RS256', 'ES256'];
  }
}

export function toAuthConfig(env: EnvironmentVariables): AuthConfig {
  const keySource = keySourceOf(env);
  return {
    keySource,
    algorithms: env.JWT_ALGORITHMS ?? defaultAlgorithms(keySource),
    issuer: env.JWT_ISSUER,
    audience: env.JWT_AUDIENCE,
    clockToleranceSeconds: env.JWT_CLOCK_TOLERANCE_S,
    usesDevelopmentSecret: keySource.mode === 'secret' && keySource.secret === DEVELOPMENT_JWT_SECRET,
  };
}
