import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { waitFor } from '../../launchers/wait-for';
import { Metrics } from '../../src/observability/metrics';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { signToken } from '../support/app/tokens';
import { expectProblem } from '../support/assertions/problem';
import { buildDataset, plantOrders } from '../support/data/dataset';
import { IDENTITY_PROVIDERS } from '../support/data/identity-providers';
import { api } from '../support/app/api-client';

const privatePem = (key: KeyObject): string => key.export({ type: 'pkcs8', format: 'pem' }).toString();

interface Page {
  elements: Array<Record<string, unknown>>;
}

const list = (app: TestApp, token: string) => api(app.server, token).get('/orders?size=5');

/**
 * A JWKS endpoint that a test controls: it serves the keys published so far,
 * hangs (accepts and never answers, as a paused provider), or is stopped
 * (refuses connections). It counts the fetches it answered or held.
 */
class JwksEndpoint {
  private readonly published = new Map<string, KeyObject>();
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private port = 0;
  mode: 'serve' | 'hang' = 'serve';
  fetches = 0;

  get uri(): string {
    return `http://127.0.0.1:${this.port}/.well-known/jwks.json`;
  }

  publish(kid: string): KeyObject {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    this.published.set(kid, publicKey);
    return privateKey;
  }

  async start(): Promise<void> {
    const server = createServer((_request: IncomingMessage, response: ServerResponse) => {
      this.fetches += 1;
      if (this.mode === 'hang') return;
      const keys = [...this.published].map(([kid, key]) => ({ ...key.export({ format: 'jwk' }), kid, use: 'sig' }));
      response.setHeader('Content-Type', 'application/json');
      response.end(JSON.stringify({ keys }));
    });
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Refuses connections from now on, cutting any held one. */
  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}

/** docs/API.md §2, JWKS mode: a provider's key set that rotates, floods with made-up kids, hangs or goes away. */
describe('JWKS mode: key rotation while the provider is down, and made-up kids', () => {
  let endpoint: JwksEndpoint;
  let app: TestApp;
  let signingKey: KeyObject;

  // A fresh provider and application per test: the key set's cooldown is state each test sets up for itself.
  beforeEach(async () => {
    endpoint = new JwksEndpoint();
    signingKey = endpoint.publish('key-1');
    await endpoint.start();
    app = await startTestApp({ JWT_SECRET: undefined, JWT_JWKS_URI: endpoint.uri });
  });

  afterEach(async () => {
    await app?.close();
    await endpoint?.stop();
  });

  const signed = (kid: string, key = signingKey) =>
    signToken({ sub: 4, role: 'ADMIN' }, { secret: privatePem(key), algorithm: 'RS256', header: { kid } });

  /** Answers `token` once the key set's cooldown since the last fetch has passed, and tells how long it took. */
  async function afterCooldown(token: string, expected: number): Promise<{ status: number; ms: number }> {
    return await waitFor(
      `an answer ${expected} once the fetch cooldown has passed`,
      async () => {
        const started = Date.now();
        const response = await list(app, token);
        return response.status === expected ? { status: response.status, ms: Date.now() - started } : false;
      },
      { timeoutMs: 15_000, intervalMs: 250 },
    );
  }

  const fetchesMetric = async (outcome: string): Promise<number> => {
    const text = await app.app.get(Metrics).registry.metrics();
    return Number(new RegExp(`orders_jwks_fetches_total\\{outcome="${outcome}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
  };

  it('answers 401 to made-up kids against a healthy key set, fetching it at most once whatever their number', async () => {
    expect((await list(app, signed('key-1'))).status).toBe(200);
    const before = endpoint.fetches;
    const answers = await Promise.all(Array.from({ length: 50 }, () => list(app, signed(randomUUID()))));
    for (const answer of answers) expectProblem(answer, 401);
    expect(endpoint.fetches - before).toBeLessThanOrEqual(1);
  });

  it('accepts a newly published key within 10 s of its first use, after a flood of made-up kids', async () => {
    expect((await list(app, signed('key-1'))).status).toBe(200);
    await Promise.all(Array.from({ length: 50 }, () => list(app, signed(randomUUID()))));
    const rotated = endpoint.publish('key-2');
    const firstUse = Date.now();
    await afterCooldown(signed('key-2', rotated), 200);
    expect(Date.now() - firstUse).toBeLessThanOrEqual(10_000);
  }, 20_000);

  it('answers 503 with Retry-After within 2 s to a new kid while the key set endpoint hangs; cached kids still verify', async () => {
    expect((await list(app, signed('key-1'))).status).toBe(200);
    const rotated = endpoint.publish('key-2');
    endpoint.mode = 'hang';
    const { ms } = await afterCooldown(signed('key-2', rotated), 503);
    expect(ms).toBeLessThan(2000);
    const answer = await list(app, signed('key-2', rotated));
    expect(expectProblem(answer, 503).type).toBe('/problems/identity-provider-unavailable');
    expect(answer.headers['retry-after']).toBe('5');
    // A fetch already failing is not waited on again within the cooldown.
    const started = Date.now();
    expectProblem(await list(app, signed('key-2', rotated)), 503);
    expect(Date.now() - started).toBeLessThan(500);
    expect((await list(app, signed('key-1'))).status).toBe(200);
    expect(await fetchesMetric('failure')).toBeGreaterThanOrEqual(1);

    // Once the provider answers again, the new key verifies: nobody was logged out.
    endpoint.mode = 'serve';
    await afterCooldown(signed('key-2', rotated), 200);
  }, 40_000);

  it('answers 503 within 2 s to a new kid while the key set endpoint is stopped', async () => {
    expect((await list(app, signed('key-1'))).status).toBe(200);
    const rotated = endpoint.publish('key-2');
    await endpoint.stop();
    const { ms } = await afterCooldown(signed('key-2', rotated), 503);
    expect(ms).toBeLessThan(2000);
    expect((await list(app, signed('key-1'))).status).toBe(200);
    expect(await fetchesMetric('success')).toBe(1);
  }, 20_000);
});

/**
 * docs/API.md §2: tokens shaped as each identity provider issues them, with the
 * settings docs/DEPLOYING.md's "Using your identity provider" gives for it. HS256 signs
 * them here: where the claims are read does not depend on how they are signed.
 */
describe.each(IDENTITY_PROVIDERS)(
  'tokens as $name issues them',
  ({ settings, admin, user, withoutMemberId, withoutRole }) => {
    let app: TestApp;

    beforeEach(async () => {
      app = await startTestApp({ ...settings });
      await plantOrders(app.dataSource, buildDataset(7, 60));
    });

    afterEach(async () => {
      await app?.close();
    });

    it('lists as an administrator, with userId', async () => {
      const response = await list(app, signToken(admin));
      expect(response.status).toBe(200);
      const { elements } = response.body as Page;
      expect(elements.length).toBeGreaterThan(0);
      for (const element of elements) expect(element).toHaveProperty('userId');
    });

    it('lists as a member, without userId', async () => {
      const response = await list(app, signToken(user));
      expect(response.status).toBe(200);
      const { elements } = response.body as Page;
      expect(elements.length).toBeGreaterThan(0);
      for (const element of elements) expect(element).not.toHaveProperty('userId');
    });

    it('answers 403 naming the member id claim when the token lacks it', async () => {
      const body = expectProblem(await list(app, signToken(withoutMemberId)), 403);
      expect(body.detail).toContain(settings.JWT_MEMBER_ID_CLAIM);
    });

    it('answers 403 naming where it looked when no role the configuration knows is present', async () => {
      const body = expectProblem(await list(app, signToken(withoutRole)), 403);
      expect(body.detail).toContain(settings.JWT_ROLES_CLAIM.split(',')[0]);
      // Never which values would have worked.
      for (const value of [...settings.JWT_ADMIN_ROLES.split(','), ...settings.JWT_USER_ROLES.split(',')]) {
        expect(body.detail).not.toContain(value);
      }
    });
  },
);
