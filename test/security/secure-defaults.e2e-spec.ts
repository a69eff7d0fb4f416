import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createConnection, type Connection, type RowDataPacket } from 'mysql2/promise';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ORDER_ENTITIES } from '../../src/orders/order-entities';
import { startThrowawayMysql, type ThrowawayMysql } from '../../launchers/mysql-server';
import { linksOf } from '../support/assertions/link-header';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { freshMysqlDatabase, maintenanceOptions, mysqlEnvironment, parseMysqlUrl } from '../support/app/test-database';
import { signToken, userToken } from '../support/app/tokens';
import { MEMBERS, seedDataset } from '../support/data/dataset';
import { api, bearer } from '../support/app/api-client';

const LIMIT = 5;

/**
 * What the service does by default where a convenience could open a real deployment (docs/DEPLOYING.md, "Security"): how
 * readiness loads the database, whose budget a bad token spends behind a proxy, and what a continuation reveals.
 */
describe('readiness under a storm of probes', () => {
  let server: ThrowawayMysql;
  let context: TestApp;
  let observer: Connection;

  beforeAll(async () => {
    // A server of its own: its statement counter then counts this service's statements and no other suite's.
    server = await startThrowawayMysql();
    const target = parseMysqlUrl(server.url);
    observer = await createConnection({ host: target.host, port: target.port, user: target.user });
    await observer.query('CREATE DATABASE orders_test');
    const migrator = new DataSource({
      ...maintenanceOptions(target),
      entities: ORDER_ENTITIES,
    });
    await migrator.initialize();
    await migrator.runMigrations();
    await migrator.destroy();
    context = await startTestApp({ ...mysqlEnvironment(target), RATE_LIMIT_PER_MINUTE: String(LIMIT) });
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await observer?.end();
    await server?.stop();
  });

  /** Statements the server has received from every client; the observer's own query counts one. */
  const questions = async (): Promise<number> => {
    const [row] = (await observer.query<RowDataPacket[]>("SHOW GLOBAL STATUS LIKE 'Questions'"))[0];
    return Number(row.Value);
  };

  it('answers 1,000 probes from the background checks: a handful of statements, and never 429', async () => {
    const before = await questions();
    const started = Date.now();
    const statuses = new Map<number, number>();
    for (let batch = 0; batch < 20; batch += 1) {
      const answers = await Promise.all(Array.from({ length: 50 }, () => request(context.server).get('/health/ready')));
      for (const { status } of answers) statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    const stormMs = Date.now() - started;
    const sent = (await questions()) - before - 1;
    expect(Object.fromEntries(statuses)).toEqual({ 200: 1000 });
    // What the service sends on its own over as long a spell with no probe: a health check a second, a look for
    // count rows to fold (OrderCountFolding, about ten statements a look), the rare read of what the server holds.
    const quietFrom = await questions();
    await new Promise((resolve) => setTimeout(resolve, stormMs));
    const background = (await questions()) - quietFrom - 1;
    // The two spells may differ by a look or two of the background work; a probe that sent a statement of its own
    // would have added a thousand.
    expect(sent).toBeLessThanOrEqual(background + 30);
  }, 60_000);
});

describe('rate limits of requests without a valid token', () => {
  let context: TestApp;

  afterEach(async () => {
    await context?.close();
  });

  const start = async (environment: Record<string, string> = {}) =>
    (context = await startTestApp({ RATE_LIMIT_PER_MINUTE: String(LIMIT), ...environment }));

  const list = (token?: string, forwardedFor?: string) => {
    let call = request(context.server).get('/orders');
    if (token) call = call.set(bearer(token));
    if (forwardedFor) call = call.set('X-Forwarded-For', forwardedFor);
    return call;
  };

  const statusesOf = async (count: number, send: () => request.Test): Promise<number[]> => {
    const statuses: number[] = [];
    for (let index = 0; index < count; index += 1) statuses.push((await send()).status);
    return statuses;
  };

  it('never spends a member’s budget on a flood of expired tokens in their name', async () => {
    await start();
    const expired = signToken({ sub: 5, role: 'USER' }, { expiresInSeconds: -3600 });
    const flood = await statusesOf(3 * LIMIT, () => list(expired));
    // 401 while the address has budget, then 429 from the address's bucket: never a member's.
    expect(flood.slice(0, LIMIT)).toEqual(Array<number>(LIMIT).fill(401));
    expect(new Set(flood.slice(LIMIT))).toEqual(new Set([429]));
    expect(await statusesOf(LIMIT + 1, () => list(userToken(5)))).toEqual([...Array<number>(LIMIT).fill(200), 429]);
  });

  it('behind a trusted proxy, counts each client apart: one client’s flood does not limit another', async () => {
    await start({ TRUST_PROXY: '1' });
    const forged = `${userToken(5).slice(0, -4)}AAAA`;
    expect(new Set(await statusesOf(2 * LIMIT, () => list(forged, '203.0.113.10')))).toEqual(new Set([401, 429]));
    expect((await list(forged, '203.0.113.10')).status).toBe(429);
    expect((await list(undefined, '203.0.113.20')).status).toBe(401);
    expect((await list(forged, '198.51.100.7, 203.0.113.30')).status).toBe(401);
  });

  it('without TRUST_PROXY, ignores X-Forwarded-For: a forged one does not escape the limit', async () => {
    await start();
    const forged = `${userToken(5).slice(0, -4)}AAAA`;
    expect(new Set(await statusesOf(2 * LIMIT, () => list(forged, '203.0.113.10')))).toEqual(new Set([401, 429]));
    for (const address of ['203.0.113.20', '198.51.100.7', '127.0.0.2']) {
      expect((await list(undefined, address)).status).toBe(429);
    }
  });
});

describe('what a continuation reveals', () => {
  let context: TestApp;
  /** The table's newest order, and a member who did not place it: their walks must not learn its id. */
  let newest: number;
  let member: number;

  beforeAll(async () => {
    const target = await freshMysqlDatabase('continuations');
    context = await startTestApp({ ...mysqlEnvironment(target), RATE_LIMIT_PER_MINUTE: '0' });
    await seedDataset(context.dataSource, 11);
    const [last] = await context.dataSource.query<{ id: number; userId: number }[]>(
      'SELECT id, user_id AS userId FROM orders ORDER BY id DESC LIMIT 1',
    );
    newest = Number(last.id);
    member = MEMBERS.find((candidate) => candidate !== Number(last.userId)) ?? MEMBERS[0];
  }, 120_000);

  afterAll(async () => {
    await context?.close();
  });

  const tokenIn = (link: string): string => {
    const parameters = new URL(link, 'http://orders.test').searchParams;
    return parameters.get('after') ?? parameters.get('before') ?? '';
  };

  it.each(['totalPrice,asc', 'orderId,desc', 'createdAt,desc'])(
    'shows a member nothing, following next links: no value can be read from it, none by its length (sort=%s)',
    async (sort) => {
      const tokens: string[] = [];
      let pages = 0;
      let next: string | undefined = `/orders?size=4&sort=${sort}`;
      while (next) {
        const response = await api(context.server, userToken(member)).get(next);
        expect(response.status).toBe(200);
        pages += 1;
        const links = linksOf(response.headers.link);
        for (const link of [links.next, links.prev]) if (link) tokens.push(tokenIn(link));
        next = links.next;
      }
      expect(pages).toBeGreaterThan(2);
      for (const token of tokens) {
        const bytes = Buffer.from(token, 'base64url');
        // Neither the JSON of a payload nor the table's newest id, in any encoding a reader could try.
        expect(() => JSON.parse(bytes.toString('utf8')) as unknown).toThrow();
        expect(bytes.toString('latin1')).not.toContain(String(newest));
        expect(token).not.toContain(Buffer.from(String(newest)).toString('base64url').slice(0, 3));
        expect(token.length).toBe(tokens[0].length);
      }
    },
    60_000,
  );
});
