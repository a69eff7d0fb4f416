import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { toAppConfig } from './app.config';
import { toAuthConfig } from './auth.config';
import { toDatabaseConfig } from './database.config';
import { getMetadataStorage } from 'class-validator';
import { readFileSync } from 'node:fs';
import { InvalidConfigurationError, validateEnvironment } from './environment';
import { EnvironmentVariables } from './environment-variables';
import { DEVELOPMENT_JWT_SECRET } from './jwt-verification';

/** 32 bytes in base64, as ACCESS_RECORD_SEAL_KEY takes them. */
const SEAL_KEY = Buffer.alloc(32, 7).toString('base64');

const rsaPublicKey = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .publicKey.export({ type: 'spki', format: 'pem' })
  .toString();
/** A self-signed certificate, made once for the CA settings: any certificate will do. */
const caPem = spawnSync(
  'openssl',
  [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    '/dev/null',
    '-subj',
    '/CN=Test CA',
    '-days',
    '1',
  ],
  { encoding: 'utf8' },
).stdout;
const ecPublicKey = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .publicKey.export({ type: 'spki', format: 'pem' })
  .toString();

function problemsOf(raw: Record<string, string | undefined>): string[] {
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

  it('reads DOCS_ENABLED as true or false, on by default', () => {
    expect(validateEnvironment({}).DOCS_ENABLED).toBe(true);
    expect(validateEnvironment({ DOCS_ENABLED: 'false' }).DOCS_ENABLED).toBe(false);
    expect(validateEnvironment({ DOCS_ENABLED: 'true' }).DOCS_ENABLED).toBe(true);
    expect(problemsOf({ DOCS_ENABLED: 'no' })[0]).toMatch(/^DOCS_ENABLED: DOCS_ENABLED must be true or false/);
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
      fullSortMaxOrders: 1_000_000,
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

  it('refuses the embedded database and a missing page link secret in production', () => {
    const problems = problemsOf({ NODE_ENV: 'production' });
    expect(problems.map((problem) => problem.split(':')[0])).toEqual([
      'ACCESS_RECORD_SEAL_KEY',
      'DB_TYPE',
      'PAGE_LINK_SECRET',
    ]);
    const production = {
      NODE_ENV: 'production',
      DB_TYPE: 'mysql',
      PAGE_LINK_SECRET: 'p'.repeat(32),
      ACCESS_RECORD_SEAL_KEY: SEAL_KEY,
    };
    expect(problemsOf({ ...production, JWT_PUBLIC_KEY: rsaPublicKey })).toEqual([]);
    // Every instance must sign with the same secret, so a per-process default would break links across a fleet.
    expect(problemsOf({ ...production, PAGE_LINK_SECRET: undefined, JWT_PUBLIC_KEY: rsaPublicKey })).toEqual([
      expect.stringMatching(/^PAGE_LINK_SECRET:/),
    ]);
    // The access records' seals are checked with its public half: a key made per process could not be checked.
    expect(problemsOf({ ...production, ACCESS_RECORD_SEAL_KEY: undefined, JWT_PUBLIC_KEY: rsaPublicKey })).toEqual([
      expect.stringMatching(/^ACCESS_RECORD_SEAL_KEY: required/),
    ]);
  });

  it('wants a JWT secret of 32 bytes or more, counted in bytes', () => {
    expect(problemsOf({ JWT_SECRET: 'j'.repeat(31) })).toEqual([
      'JWT_SECRET: JWT_SECRET must be at least 32 bytes long (value not shown)',
    ]);
    // Eleven Hangul syllables are 33 bytes in UTF-8, though 11 characters.
    expect(problemsOf({ JWT_SECRET: '가'.repeat(11) })).toEqual([]);
  });

  it('wants a page link secret of 32 bytes or more, counted in bytes, and not the JWT secret', () => {
    expect(problemsOf({ PAGE_LINK_SECRET: 'p'.repeat(31) })[0]).toMatch(/^PAGE_LINK_SECRET: .*32 bytes/);
    // 11 characters of 3 bytes each in UTF-8: 33 bytes.
    expect(problemsOf({ PAGE_LINK_SECRET: '가'.repeat(11) })).toEqual([]);
    const shared = 's'.repeat(40);
    expect(problemsOf({ JWT_SECRET: shared, PAGE_LINK_SECRET: shared })).toEqual([
      expect.stringMatching(/^PAGE_LINK_SECRET: must differ from JWT_SECRET/),
    ]);
  });

  it('refuses a staleness bound below the lag past which it applies', () => {
    expect(problemsOf({ DB_REPLICA_MAX_LAG_S: '10', DB_REPLICA_MAX_STALENESS_S: '9' })).toEqual([
      'DB_REPLICA_MAX_STALENESS_S: must be at least DB_REPLICA_MAX_LAG_S, past which it applies',
    ]);
    expect(problemsOf({ DB_REPLICA_MAX_LAG_S: '10', DB_REPLICA_MAX_STALENESS_S: '10' })).toEqual([]);
    expect(validateEnvironment({}).DB_REPLICA_MAX_STALENESS_S).toBe(300);
  });

  it('names a secret that is wrong without ever printing its value', () => {
    const problems = problemsOf({
      JWT_SECRET: 'recognizable-jwt-secret',
      PAGE_LINK_SECRET: 'recognizable-link',
      REDIS_URL: 'not a url with recognizable-password',
      PORT: 'abc',
    });
    expect(problems.map((problem) => problem.split(':')[0]).sort()).toEqual([
      'JWT_SECRET',
      'PAGE_LINK_SECRET',
      'PORT',
      'REDIS_URL',
    ]);
    expect(problems.join('\n')).not.toMatch(/recognizable/);
    // A value that is no secret is still shown: it is what the operator has to find.
    expect(problems.join('\n')).toContain('"abc"');
  });

  it('fetches a key set over https only, but for a loopback address', () => {
    expect(problemsOf({ JWT_JWKS_URI: 'http://id.example.com/jwks.json' })).toEqual([
      expect.stringMatching(/^JWT_JWKS_URI: must be https/),
    ]);
    for (const uri of [
      'https://id.example.com/jwks.json',
      'http://127.0.0.1:8080/jwks.json',
      'http://localhost/jwks.json',
      'http://[::1]:9000/jwks',
    ]) {
      expect(problemsOf({ JWT_JWKS_URI: uri })).toEqual([]);
    }
  });

  it('reads TRUST_PROXY as a hop count or a list of proxy addresses and CIDRs', () => {
    expect(toAppConfig(validateEnvironment({})).trustProxy).toBeUndefined();
    expect(toAppConfig(validateEnvironment({ TRUST_PROXY: '0' })).trustProxy).toBeUndefined();
    const twoHops = toAppConfig(validateEnvironment({ TRUST_PROXY: '2' })).trustProxy;
    expect([0, 1, 2].map((hop) => twoHops?.('203.0.113.9', hop))).toEqual([true, true, false]);
    const listed = toAppConfig(validateEnvironment({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' })).trustProxy;
    expect([listed?.('10.1.2.3', 0), listed?.('127.0.0.1', 0), listed?.('203.0.113.9', 0)]).toEqual([
      true,
      true,
      false,
    ]);
    expect(problemsOf({ TRUST_PROXY: 'the load balancer' })[0]).toMatch(/^TRUST_PROXY:/);
  });

  it('reads DB_SSL and DB_SSL_CA into one TLS setting for every server', () => {
    const mysql = { DB_TYPE: 'mysql', DB_HOST: 'primary.internal', DB_REPLICAS: 'replica.internal:3306' };
    const tlsOf = (raw: Record<string, string>) => {
      const config = toDatabaseConfig(validateEnvironment({ ...mysql, ...raw }));
      return config.type === 'mysql' ? config.tls : 'not mysql';
    };
    expect(tlsOf({})).toBeUndefined();
    expect(tlsOf({ DB_SSL: 'required' })).toEqual({ rejectUnauthorized: false, verifyIdentity: false });
    expect(tlsOf({ DB_SSL: 'verify-ca', DB_SSL_CA: caPem.replace(/\n/g, '\\n') })).toEqual({
      ca: caPem,
      rejectUnauthorized: true,
      verifyIdentity: false,
    });
    expect(tlsOf({ DB_SSL: 'verify-identity' })).toEqual({ rejectUnauthorized: true, verifyIdentity: true });
    expect(problemsOf({ DB_SSL: 'on' })[0]).toMatch(/^DB_SSL:/);
    expect(problemsOf({ DB_SSL: 'verify-identity' })[0]).toMatch(/^DB_SSL: verify-identity needs DB_HOST/);
    expect(problemsOf({ DB_SSL: 'verify-identity', DB_HOST: 'db.internal', DB_REPLICAS: '10.0.0.3:3306' })).toEqual([
      expect.stringMatching(/^DB_SSL: verify-identity needs DB_HOST and DB_REPLICAS/),
    ]);
    expect(problemsOf({ DB_SSL_CA: caPem })[0]).toMatch(/^DB_SSL_CA: only used with DB_SSL=verify-ca/);
    expect(problemsOf({ DB_SSL: 'verify-ca', DB_SSL_CA: '/nonexistent/ca.pem' })[0]).toMatch(
      /^DB_SSL_CA: the file could not be read \(ENOENT\)/,
    );
    expect(problemsOf({ DB_SSL: 'verify-ca', DB_SSL_CA: '-----BEGIN CERTIFICATE-----\nbroken' })[0]).toMatch(
      /^DB_SSL_CA: not a PEM-encoded certificate/,
    );
  });
});

describe('.env.example', () => {
  it('lists every variable the service reads, with its default', () => {
    const listed = new Set(
      readFileSync('.env.example', 'utf8')
        .split('\n')
        .map((line) => /^([A-Z][A-Z0-9_]*)=/.exec(line)?.[1])
        .filter((name) => name !== undefined),
    );
    const read = getMetadataStorage()
      .getTargetValidationMetadatas(EnvironmentVariables, '', true, false)
      .map(({ propertyName }) => propertyName);
    expect([...new Set(read)].filter((name) => !listed.has(name))).toEqual([]);
  });
});

describe('toAuthConfig', () => {
  const problemsOfUse = (raw: Record<string, string>): string[] => {
    try {
      toAuthConfig(validateEnvironment(raw));
      return [];
    } catch (error) {
      if (error instanceof InvalidConfigurationError) return error.problems;
      throw error;
    }
  };

  it('verifies with the development secret only on the embedded database, outside production', () => {
    expect(problemsOfUse({})).toEqual([]);
    expect(problemsOfUse({ DB_TYPE: 'mysql' })).toEqual([expect.stringMatching(/^JWT_SECRET: the built-in/)]);
    expect(problemsOfUse({ DB_TYPE: 'mysql', NODE_ENV: 'development' })).toHaveLength(1);
    expect(problemsOfUse({ DB_TYPE: 'mysql', JWT_SECRET: DEVELOPMENT_JWT_SECRET })).toHaveLength(1);
    expect(problemsOfUse({ DB_TYPE: 'mysql', JWT_SECRET: 'an-operator-secret-of-32-bytes-or-more' })).toEqual([]);
  });

  it('requires the issuer and the audience with a public key or a key set in production', () => {
    const production = {
      NODE_ENV: 'production',
      DB_TYPE: 'mysql',
      PAGE_LINK_SECRET: 'p'.repeat(32),
      ACCESS_RECORD_SEAL_KEY: SEAL_KEY,
    };
    expect(problemsOfUse({ ...production, JWT_PUBLIC_KEY: rsaPublicKey })).toEqual([
      'JWT_ISSUER: required with JWT_PUBLIC_KEY and NODE_ENV=production',
      'JWT_AUDIENCE: required with JWT_PUBLIC_KEY and NODE_ENV=production',
    ]);
    expect(
      problemsOfUse({ ...production, JWT_JWKS_URI: 'https://id.example.com/jwks.json', JWT_ISSUER: 'https://id/' }),
    ).toEqual(['JWT_AUDIENCE: required with JWT_JWKS_URI and NODE_ENV=production']);
    expect(
      problemsOfUse({ ...production, JWT_PUBLIC_KEY: rsaPublicKey, JWT_ISSUER: 'https://id/', JWT_AUDIENCE: 'orders' }),
    ).toEqual([]);
    // Outside production a key alone still verifies, as a developer's provider is often set up without either.
    expect(problemsOfUse({ DB_TYPE: 'mysql', JWT_PUBLIC_KEY: rsaPublicKey })).toEqual([]);
  });

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
