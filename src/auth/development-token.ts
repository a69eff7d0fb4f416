import jwt from 'jsonwebtoken';
import type { AuthConfig } from '../config/auth.config';
import { Role } from './role';

/** Signs a token the service accepts when it runs with a shared secret. */
export function signDevelopmentToken(
  config: AuthConfig,
  claims: { sub: number; role: Role },
  expiresIn: jwt.SignOptions['expiresIn'] = '1h',
): string {
  if (config.verification.mode !== 'secret') {
    throw new Error('Tokens can only be signed here when the service verifies with JWT_SECRET');
  }
  return jwt.sign({ sub: String(claims.sub), role: claims.role }, config.verification.secret, {
    algorithm: config.algorithms[0],
    expiresIn,
    ...(config.issuer ? { issuer: config.issuer } : {}),
    ...(config.audience ? { audience: config.audience } : {}),
  });
}
