import { describe, expect, it } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import { toAuthConfig } from './auth.config';
import { toDatabaseConfig } from './database.config';
import { InvalidConfigurationError, validateEnvironment } from './environment';
import { DEVELOPMENT_JWT_SECRET } from './jwt-verification';

const rsaPublicKey = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .publicKey.export({ type: 'spki', format: 'pem' })
  .toString();
const ecPublicKey = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .publicKey.export({ type: 'spki', format: 'pem' })
  .toString();

function problemsOf(raw: Record<string, string>): string[] {
  try {
    validateEnvironment(raw);
  } catch (error) {
    if (error instanceof InvalidConfigurationError) return error.problems;
    throw error;
  }
  return [];
}

describe('validateEnvironment', () => {
  it('fills in the documented defaults', () => {
    expect(validateEnvironment({})).toMatchObject({
      PORT: 3000,
      DB_TYPE: 'sqlite',
      DB_PORT: 3306,
      DB_QUERY_TIMEOUT_MS: 2000,
      JWT_CLOCK_TOLERANCE_S: 30,
      APP_TIMEZONE: 'Asia/Seoul',
      RATE_LIMIT_PER_MINUTE: 600,
      SHUTDOWN_GRACE_MS: 10000,
      CORS_ORIGINS: [],
      DB_REPLICAS: [],
      DB_REPLICA_MAX_LAG_S: 5,
    });
  });

  it('treats empty values as unset', () => {
    expect(validateEnvironment({ JWT_ISSUER: '', PORT: '' })).toMatchObject({ JWT_ISSUER: undefined, PORT: 3000 });
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DB_TYPE', 'postgres'],
    ['DB_PORT', '-1'],
    ['DB_POOL_SIZE', '0'],
    ['DB_QUERY_TIMEOUT_MS', 'soon'],
    ['DB_REPLICAS', 'replica-1'],
    ['DB_REPLICAS', '10.0.0.2:3306,10.0.0.3'],
    ['DB_REPLICA_MAX_LAG_S', '0'],
    ['JWT_SECRET', 'short'],
    ['JWT_JWKS_URI', 'not a url'],
    ['JWT_ALGORITHMS', 'none'],
    ['JWT_CLOCK_TOLERANCE_S', '1.5'],
    ['APP_TIMEZONE', 'Mars/Olympus'],
    ['LOG_LEVEL', 'loud'],
    ['RATE_LIMIT_PER_MINUTE', '-5'],
    ['NODE_ENV', 'staging'],
  ])('names %s when it is %j', (name, value) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${name}:`));
  });

  it('reads lists separated by commas', () => {
    expect(validateEnvironment({ CORS_ORIGINS: 'https://a.example, https://b.example' }).CORS_ORIGINS).toEqual([
      'https://a.example',
      'https://b.example',
    ]);
  });

  it('reads replicas as host:port in the order given', () => {
    const env = validateEnvironment({ DB_TYPE: 'mysql', DB_REPLICAS: 'db-r1.internal:3307, 10.0.0.3:3306' });
    expect(toDatabaseConfig(env)).toMatchObject({
      replicas: [
        { host: 'db-r1.internal', port: 3307 },
        { host: '10.0.0.3', port: 3306 },
      ],
      replicaMaxLagSeconds: 5,
    });
  });

  it('refuses two verification modes at once', () => {
    expect(problemsOf({ JWT_SECRET: 'x'.repeat(40), JWT_PUBLIC_KEY: rsaPublicKey })[0]).toMatch(
      /^JWT_SECRET, JWT_PUBLIC_KEY/,
    );
  });

  it('refuses HS algorithms with a public key and asymmetric ones with a secret (key confusion)', () => {
    expect(problemsOf({ JWT_PUBLIC_KEY: rsaPublicKey, JWT_ALGORITHMS: 'RS256,HS256' })[0]).toMatch(
      /^JWT_ALGORITHMS: HS256/,
    );
    expect(problemsOf({ JWT_ALGORITHMS: 'RS256' })[0]).toMatch(/^JWT_ALGORITHMS: RS256/);
  });

  it('refuses a public key that is not one', () => {
    expect(problemsOf({ JWT_PUBLIC_KEY: 'hello' })[0]).toMatch(/^JWT_PUBLIC_KEY:/);
  });

  it('refuses the embedded database, the development secret and a missing page link secret in production', () => {
    const problems = problemsOf({ NODE_ENV: 'production' });
    expect(problems.map((problem) => problem.split(':')[0])).toEqual(['DB_TYPE', 'PAGE_LINK_SECRET', 'JWT_SECRET']);
    const production = { NODE_ENV: 'production', DB_TYPE: 'mysql', PAGE_LINK_SECRET: 'p'.repeat(32) };
    expect(problemsOf({ ...production, JWT_SECRET: DEVELOPMENT_JWT_SECRET })).toHaveLength(1);
    expect(problemsOf({ ...production, JWT_PUBLIC_KEY: rsaPublicKey })).toEqual([]);
    // Every instance must sign with the same secret, so a per-process default would break links across a fleet.
    expect(problemsOf({ NODE_ENV: 'production', DB_TYPE: 'mysql', JWT_PUBLIC_KEY: rsaPublicKey })).toEqual([
      expect.stringMatching(/^PAGE_LINK_SECRET:/),
    ]);
    expect(problemsOf({ PAGE_LINK_SECRET: 'short' })[0]).toMatch(/^PAGE_LINK_SECRET:/);
  });
});

describe('toAuthConfig', () => {
  it('pins HS256 for the development secret', () => {
    expect(toAuthConfig(validateEnvironment({}))).toMatchObject({
      verification: { mode: 'secret', secret: DEVELOPMENT_JWT_SECRET, family: 'symmetric' },
      algorithms: ['HS256'],
    });
  });

  it('pins the algorithm family of the public key', () => {
    expect(toAuthConfig(validateEnvironment({ JWT_PUBLIC_KEY: rsaPublicKey })).algorithms).toEqual(['RS256']);
    expect(toAuthConfig(validateEnvironment({ JWT_PUBLIC_KEY: ecPublicKey })).algorithms).toEqual(['ES256']);
  });

  it('accepts a PEM written on one line with \\n escapes', () => {
    const oneLine = rsaPublicKey.replace(/\n/g, '\\n');
    const { verification } = toAuthConfig(validateEnvironment({ JWT_PUBLIC_KEY: oneLine }));
    expect(verification.mode).toBe('public-key');
    expect(verification.mode === 'public-key' && verification.key.export({ type: 'spki', format: 'pem' })).toBe(
      rsaPublicKey,
    );
  });
});
