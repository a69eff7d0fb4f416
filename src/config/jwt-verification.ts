import { createPublicKey, createSecretKey, type KeyObject } from 'node:crypto';

/** What jsonwebtoken may be asked to verify with; `none` is not among them. */
export const JWT_ALGORITHMS = [
  'HS256',
  'HS384',
  'HS512',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
] as const;
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];

/** Verifies when nothing is configured and signs `npm start`'s tokens: embedded database only, never in production. */
export const DEVELOPMENT_JWT_SECRET = 'development-only-secret-never-use-in-production';

/** How tokens are verified, decided once at start: the mode, the key parsed once into a KeyObject, its algorithms. */
export type JwtVerification =
  | { mode: 'secret'; secret: string; key: KeyObject; family: 'symmetric' }
  | { mode: 'public-key'; key: KeyObject; family: 'asymmetric' }
  | { mode: 'jwks'; jwksUri: string; family: 'asymmetric' };

interface JwtVariables {
  JWT_SECRET?: string;
  JWT_PUBLIC_KEY?: string;
  JWT_JWKS_URI?: string;
  JWT_ALGORITHMS?: JwtAlgorithm[];
}

/** What decides whether a verification may be used: where the service runs, and what it checks tokens for. */
interface DeploymentVariables {
  NODE_ENV: string;
  DB_TYPE: string;
  JWT_ISSUER?: string;
  JWT_AUDIENCE?: string;
}

/** Hosts a plain-http key set may be fetched from: nothing between the service and them can change the keys. */
const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** The development secret, and nothing else, verifies: the one configuration whose tokens anyone may sign. */
export const isDevelopmentVerification = (verification: JwtVerification): boolean =>
  verification.mode === 'secret' && verification.secret === DEVELOPMENT_JWT_SECRET;

/** Whether a verification may open this deployment. */
export function tokenUseProblems(env: DeploymentVariables, verification: JwtVerification): string[] {
  const problems: string[] = [];
  if (isDevelopmentVerification(verification) && (env.DB_TYPE !== 'sqlite' || env.NODE_ENV === 'production')) {
    problems.push(
      'JWT_SECRET: the built-in development secret only serves the embedded database outside production; set JWT_SECRET (32 bytes or more), JWT_PUBLIC_KEY or JWT_JWKS_URI',
    );
  }
  if (verification.family === 'asymmetric' && env.NODE_ENV === 'production') {
    const mode = verification.mode === 'jwks' ? 'JWT_JWKS_URI' : 'JWT_PUBLIC_KEY';
    if (!env.JWT_ISSUER) problems.push(`JWT_ISSUER: required with ${mode} and NODE_ENV=production`);
    if (!env.JWT_AUDIENCE) problems.push(`JWT_AUDIENCE: required with ${mode} and NODE_ENV=production`);
  }
  return problems;
}

/** The variables' verification, or why they cannot verify a token: each problem names its variable. */
export function readJwtVerification(env: JwtVariables): { verification?: JwtVerification; problems: string[] } {
  const asymmetric = [env.JWT_PUBLIC_KEY && 'JWT_PUBLIC_KEY', env.JWT_JWKS_URI && 'JWT_JWKS_URI'].filter(Boolean);
  if (asymmetric.length > 1 || (asymmetric.length === 1 && env.JWT_SECRET)) {
    const given = [env.JWT_SECRET && 'JWT_SECRET', ...asymmetric].filter(Boolean).join(', ');
    return {
      problems: [`JWT_SECRET, JWT_PUBLIC_KEY, JWT_JWKS_URI: set only one verification mode (got ${given})`],
    };
  }
  let verification: JwtVerification;
  if (env.JWT_JWKS_URI) {
    const uri = new URL(env.JWT_JWKS_URI);
    if (uri.protocol !== 'https:' && !LOOPBACK_HOST.test(uri.hostname)) {
      return { problems: ['JWT_JWKS_URI: must be https (plain http only on a loopback address)'] };
    }
    verification = { mode: 'jwks', jwksUri: env.JWT_JWKS_URI, family: 'asymmetric' };
  } else if (env.JWT_PUBLIC_KEY) {
    const key = publicKeyOf(env.JWT_PUBLIC_KEY);
    if (!key) return { problems: ['JWT_PUBLIC_KEY: not a PEM-encoded RSA or EC public key'] };
    verification = { mode: 'public-key', key, family: 'asymmetric' };
  } else {
    const secret = env.JWT_SECRET ?? DEVELOPMENT_JWT_SECRET;
    verification = { mode: 'secret', secret, key: createSecretKey(Buffer.from(secret, 'utf8')), family: 'symmetric' };
  }
  const problems: string[] = [];
  const wrongFamily = (env.JWT_ALGORITHMS ?? []).filter(
    (algorithm) => algorithm.startsWith('HS') !== (verification.family === 'symmetric'),
  );
  if (wrongFamily.length > 0) {
    const with_ =
      verification.family === 'symmetric'
        ? 'a shared secret (JWT_SECRET)'
        : 'a public key (JWT_PUBLIC_KEY / JWT_JWKS_URI)';
    problems.push(`JWT_ALGORITHMS: ${wrongFamily.join(', ')} cannot be used with ${with_}`);
  }
  if (env.JWT_ALGORITHMS?.length === 0) problems.push('JWT_ALGORITHMS: must name at least one algorithm');
  return { verification, problems };
}

/** Pinned by the key, so that a token cannot choose how it is verified (RFC 8725 §3.1). */
export function defaultAlgorithms(verification: JwtVerification): JwtAlgorithm[] {
  switch (verification.mode) {
    case 'secret':
      return ['HS256'];
    case 'public-key':
      return verification.key.asymmetricKeyType === 'ec' ? ['ES256'] : ['RS256'];
    case 'jwks':
      return ['RS256', 'ES256'];
  }
}

function publicKeyOf(pem: string): KeyObject | undefined {
  try {
    const key = createPublicKey(pem);
    return ['rsa', 'ec', 'rsa-pss'].includes(key.asymmetricKeyType ?? '') ? key : undefined;
  } catch {
    return undefined;
  }
}
