import { randomBytes } from 'node:crypto';

/**
 * The service refuses its built-in development secret on MySQL, so the bench verifies with a secret of its own:
 * put in its environment, which every server it starts inherits, and used to sign its tokens. One given is kept.
 */
export function benchJwtSecret(): string {
  process.env.JWT_SECRET ||= randomBytes(32).toString('base64url');
  return process.env.JWT_SECRET;
}
