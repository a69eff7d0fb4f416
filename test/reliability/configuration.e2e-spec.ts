import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { BASE_TEST_ENVIRONMENT } from '../support/app/test-app';

const publicKey = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .publicKey.export({ type: 'spki', format: 'pem' })
  .toString();

/** Starts the service from its sources on the test environment changed by `environment` (empty: unset). */
const start = (environment: Record<string, string>) =>
  spawnSync(process.execPath, ['-r', 'ts-node/register', 'src/main.ts'], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, ...BASE_TEST_ENVIRONMENT, LOG_LEVEL: 'info', ...environment },
  });

/** Each in production, with what production needs besides what is tried. */
const PRODUCTION = {
  NODE_ENV: 'production',
  DB_TYPE: 'mysql',
  PAGE_LINK_SECRET: 'l'.repeat(40),
  ACCESS_RECORD_SEAL_KEY: Buffer.alloc(32, 1).toString('base64'),
};

/** Invalid configuration stops the process at start, with a message that names the variable (docs/API.md). */
describe('starting with invalid configuration', () => {
  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ DB_TYPE: 'postgres' }, 'DB_TYPE'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET'],
    [{ NODE_ENV: 'production' }, 'DB_TYPE'],
    // The development secret is in this repository: on MySQL it would let anyone sign an ADMIN token.
    [{ DB_TYPE: 'mysql', JWT_SECRET: '', NODE_ENV: '' }, 'JWT_SECRET'],
    [{ DB_TYPE: 'mysql', JWT_SECRET: '', NODE_ENV: 'development' }, 'JWT_SECRET'],
    // A token the provider issued for another application must not open the listing.
    [{ ...PRODUCTION, JWT_SECRET: '', JWT_PUBLIC_KEY: publicKey, JWT_ISSUER: '' }, 'JWT_ISSUER'],
    [{ ...PRODUCTION, JWT_SECRET: '', JWT_JWKS_URI: 'https://id.example.com/jwks', JWT_AUDIENCE: '' }, 'JWT_AUDIENCE'],
    [{ JWT_SECRET: '', JWT_JWKS_URI: 'http://id.example.com/jwks' }, 'JWT_JWKS_URI'],
    [{ PAGE_LINK_SECRET: 'shorter-than-32-bytes' }, 'PAGE_LINK_SECRET'],
    [{ TRUST_PROXY: 'the balancer' }, 'TRUST_PROXY'],
    [{ DB_SSL: 'yes' }, 'DB_SSL'],
  ])(
    'exits non-zero with %j, naming %s and printing no stack trace',
    (environment, variable) => {
      const result = start(environment);
      expect(result.signal).toBeNull();
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('Invalid configuration');
      expect(result.stderr).toMatch(new RegExp(`^\\s+- ${variable}:`, 'm'));
      expect(`${result.stdout}${result.stderr}`).not.toMatch(/^\s+at /m);
    },
    60_000,
  );
});

/** A start-up error is read by everyone who reads the logs: it names a secret, never shows it. */
describe('a configuration error about a secret', () => {
  const SECRET = 'recognizable-value';
  const shared = `${SECRET}-shared-0123456789-0123456789`;
  it.each([
    [
      'secrets too short, beside a password',
      { JWT_SECRET: SECRET, PAGE_LINK_SECRET: SECRET, DB_PASSWORD: SECRET, PORT: 'x' },
    ],
    ['the page link secret equal to the JWT secret', { JWT_SECRET: shared, PAGE_LINK_SECRET: shared }],
    [
      'a public key that is not one',
      { JWT_SECRET: '', JWT_PUBLIC_KEY: `-----BEGIN PUBLIC KEY-----\n${SECRET}\n-----END PUBLIC KEY-----` },
    ],
    ['the development secret on MySQL, beside a password', { DB_TYPE: 'mysql', DB_PASSWORD: SECRET, JWT_SECRET: '' }],
  ])(
    'names what is wrong without printing its value: %s',
    (_case, environment) => {
      const result = start(environment);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('Invalid configuration');
      expect(`${result.stdout}${result.stderr}`).not.toContain(SECRET);
    },
    60_000,
  );
});
