import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { expectProblem } from '../support/assertions/problem';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { signToken } from '../support/app/tokens';
import { api } from '../support/app/api-client';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const otherRsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const pem = (key: KeyObject): string => key.export({ type: 'spki', format: 'pem' }).toString();
const privatePem = (key: KeyObject): string => key.export({ type: 'pkcs8', format: 'pem' }).toString();

const claims = { sub: 4, role: 'ADMIN' };

const list = (app: TestApp, token: string) => api(app.server, token).get('/orders');

/**
 * docs/API.md §2's other two verification modes; the HS mode runs in every
 * contract suite. One app at a time: passport keeps strategies in a
 * process-wide registry, so two apps in one process would share the last one.
 */
describe('authentication with an RSA public key', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ JWT_SECRET: undefined, JWT_PUBLIC_KEY: pem(rsa.publicKey) });
  });

  afterAll(async () => {
    await app?.close();
  });

  it('accepts RS256 tokens signed with the matching private key', async () => {
    expect(
      (await list(app, signToken(claims, { secret: privatePem(rsa.privateKey), algorithm: 'RS256' }))).status,
    ).toBe(200);
  });

  it('refuses an HS256 token whose secret is the public key (key confusion)', async () => {
    const forged = signToken(claims, { secret: Buffer.from(pem(rsa.publicKey)), algorithm: 'HS256' });
    expectProblem(await list(app, forged), 401);
  });

  it('refuses tokens signed with another key, or with an algorithm outside the allow-list', async () => {
    expectProblem(
      await list(app, signToken(claims, { secret: privatePem(otherRsa.privateKey), algorithm: 'RS256' })),
      401,
    );
    expectProblem(await list(app, signToken(claims, { secret: privatePem(rsa.privateKey), algorithm: 'RS512' })), 401);
    expectProblem(await list(app, signToken(claims, { secret: privatePem(rsa.privateKey), algorithm: 'PS256' })), 401);
  });
});

describe('authentication with an EC public key', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ JWT_SECRET: undefined, JWT_PUBLIC_KEY: pem(ec.publicKey) });
  });

  afterAll(async () => {
    await app?.close();
  });

  it('accepts ES256 tokens and refuses RS256 ones', async () => {
    expect((await list(app, signToken(claims, { secret: privatePem(ec.privateKey), algorithm: 'ES256' }))).status).toBe(
      200,
    );
    expectProblem(await list(app, signToken(claims, { secret: privatePem(rsa.privateKey), algorithm: 'RS256' })), 401);
  });
});

describe('authentication with a JWKS endpoint', () => {
  let app: TestApp;
  let jwks: Server;
  let fetches = 0;

  beforeAll(async () => {
    const jwk = { ...rsa.publicKey.export({ format: 'jwk' }), kid: 'key-1', alg: 'RS256', use: 'sig' };
    jwks = createServer((_, response) => {
      fetches += 1;
      response.setHeader('Content-Type', 'application/json');
      response.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    const address = jwks.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    app = await startTestApp({ JWT_SECRET: undefined, JWT_JWKS_URI: `http://127.0.0.1:${port}/.well-known/jwks.json` });
  });

  afterAll(async () => {
    await app?.close();
    await new Promise((resolve) => jwks?.close(resolve));
  });

  const signed = (kid: string, key = rsa.privateKey) =>
    signToken(claims, { secret: privatePem(key), algorithm: 'RS256', header: { kid } });

  it('verifies a token with the key its kid names, and caches the key set', async () => {
    expect((await list(app, signed('key-1'))).status).toBe(200);
    expect((await list(app, signed('key-1'))).status).toBe(200);
    expect(fetches).toBe(1);
  });

  it.each(['key-2', '../../etc/passwd', "' OR 1=1 --", 'x'.repeat(2000)])(
    'answers 401 to the unknown kid %j',
    async (kid) => {
      expectProblem(await list(app, signed(kid)), 401);
    },
  );

  it('answers 401 to a token without kid, and to one signed by another key under a known kid', async () => {
    expectProblem(await list(app, signToken(claims, { secret: privatePem(rsa.privateKey), algorithm: 'RS256' })), 401);
    expectProblem(await list(app, signed('key-1', otherRsa.privateKey)), 401);
  });
});
