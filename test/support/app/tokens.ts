import { createHmac } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { TEST_AUDIENCE, TEST_ISSUER, TEST_JWT_SECRET } from './test-app';

export interface TokenOptions {
  secret?: string | Buffer;
  algorithm?: jwt.Algorithm;
  /** Seconds from now; `null` leaves `exp` out. */
  expiresInSeconds?: number | null;
  notBeforeSeconds?: number;
  issuer?: string | null;
  audience?: string | null;
  header?: Record<string, unknown>;
}

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** Signs a token as an identity provider would; defaults match the e2e apps' configuration. */
export function signToken(claims: Record<string, unknown>, options: TokenOptions = {}): string {
  const payload: Record<string, unknown> = { iat: nowSeconds(), ...claims };
  if (options.expiresInSeconds !== null) payload.exp = nowSeconds() + (options.expiresInSeconds ?? 3600);
  if (options.notBeforeSeconds !== undefined) payload.nbf = nowSeconds() + options.notBeforeSeconds;
  if (options.issuer !== null) payload.iss = options.issuer ?? TEST_ISSUER;
  if (options.audience !== null) payload.aud = options.audience ?? TEST_AUDIENCE;
  return jwt.sign(payload, options.secret ?? TEST_JWT_SECRET, {
    algorithm: options.algorithm ?? 'HS256',
    header: { alg: options.algorithm ?? 'HS256', typ: 'JWT', ...options.header },
  });
}

export const userToken = (sub: number | string): string => signToken({ sub, role: 'USER' });
export const adminToken = (sub: number | string = 9000): string => signToken({ sub, role: 'ADMIN' });

const base64url = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An unsigned token (`alg: none`), which jsonwebtoken refuses to make. */
export function unsignedToken(claims: Record<string, unknown>): string {
  return `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({
    iss: TEST_ISSUER,
    aud: TEST_AUDIENCE,
    exp: nowSeconds() + 3600,
    ...claims,
  })}.`;
}

/** HS256 over any header and payload, even ones jsonwebtoken refuses to sign (a string `exp`, say). */
export function handSignedToken(
  payload: Record<string, unknown>,
  header: Record<string, unknown> = { alg: 'HS256', typ: 'JWT' },
): string {
  const signingInput = `${base64url(header)}.${base64url({ iss: TEST_ISSUER, aud: TEST_AUDIENCE, ...payload })}`;
  return `${signingInput}.${createHmac('sha256', TEST_JWT_SECRET).update(signingInput).digest('base64url')}`;
}
