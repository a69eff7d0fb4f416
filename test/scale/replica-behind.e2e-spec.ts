import { afterAll, afterEach, beforeAll, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { RowDataPacket } from 'mysql2/promise';
import request from 'supertest';
import { migrateServers } from '../../src/cli/migrate-servers';
import { DatabaseServers } from '../../src/database/database-servers';
import { toDatabaseConfig } from '../../src/config/database.config';
import { validateEnvironment } from '../../src/config/environment';
import { shippedReplicaOptions } from '../../launchers/mysql-server';
import { startReplicatedMysql, type ReplicatedMysql } from '../../launchers/replication';
import { waitFor } from '../../launchers/wait-for';
import { expectProblem } from '../support/assertions/problem';
import { buildDataset, plantOrders } from '../support/data/dataset';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { adminToken, userToken } from '../support/app/tokens';
import { api, withReason } from '../support/app/api-client';
import { describeReplicated } from '../support/jest/mariadb-only';

/** Below the planted orders: every server counts as too large to sort them whole, as at ten million orders. */
const LARGE = { DB_FULL_SORT_MAX_ORDERS: '10', RATE_LIMIT_PER_MINUTE: '0', DB_REPLICA_MAX_LAG_S: '2' };
const MAX_STALENESS_S = 8;
/** How long the replica's SQL thread stays stopped while the primary takes orders. */
const STOPPED_MS = 12_000;
/** What the header may differ from the true lag by: a check's interval, the header's rounding up, and a margin. */
const LAG_TOLERANCE_S = 3;

interface Sample {
  /** Seconds since the replica's SQL thread stopped while the primary kept committing: how far behind it truly is. */
  trueLag: number;
  status: number;
  staleness?: number;
  type?: string;
  retryAfter?: string;
}

/**
 * docs/API.md §18 on a real MariaDB primary and replica in GTID replication: the replica started from the shipped
 * option file applies in parallel; a replica behind still serves what only it can, saying how far behind, within
 * DB_REPLICA_MAX_STALENESS_S; past it, 503 of its own; fresh again once it has caught up.
 */
describeReplicated('a replica behind (docs/API.md §18)', () => {
  let pair: ReplicatedMysql;
  const apps: TestApp[] = [];

  const startApp = async (environment: Record<string, string>): Promise<TestApp> => {
    const app = await startTestApp(environment);
    apps.push(app);
    return app;
  };

  /** A shape only the replica's own indexes bound at this size: the primary cannot serve it. */
  const sortedByPrice = (app: TestApp) => api(app.server, adminToken()).get('/orders?sort=totalPrice,desc&size=5');
  const stalenessOf = (response: request.Response): number | undefined =>
    response.headers['data-staleness'] === undefined ? undefined : Number(response.headers['data-staleness']);

  beforeAll(async () => {
    pair = await startReplicatedMysql();
    await plantOrders(pair.primaryDataSource, buildDataset(29, 300));
    // Fresh statistics, so that each server's estimate of its rows (what routing reads) is the planted count.
    await pair.root('primary').query('ANALYZE TABLE orders_test.orders');
    await migrateServers(
      toDatabaseConfig(validateEnvironment({ ...pair.environment, DB_USERNAME: 'root', DB_PASSWORD: '' })),
      () => undefined,
    );
    await pair.waitInSync();
  }, 120_000);

  afterEach(() => {
    jest.restoreAllMocks();
  });

  afterAll(async () => {
    for (const app of apps) await app.close();
    await pair?.stop();
  }, 60_000);

  it('starts the replica from the shipped option file, which applies with parallel threads', async () => {
    const shipped = shippedReplicaOptions('mariadb');
    expect(Number(shipped.get('slave_parallel_threads'))).toBeGreaterThanOrEqual(4);
    expect(shipped.get('slave_parallel_mode')).toBe('optimistic');
    // Every setting of the file is what the running replica has.
    for (const [name, value] of shipped) {
      const [[running]] = await pair.root('replica').query<RowDataPacket[]>(`SELECT @@global.${name} AS value`);
      expect([name, String(running.value)]).toEqual([name, value]);
    }
  });

  it('warns at start, naming the variable, when a replica applies with a single thread', async () => {
    const warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const replica = pair.root('replica');
    // The number of threads changes only while replication is stopped.
    await replica.query('STOP SLAVE; SET GLOBAL slave_parallel_threads = 0; START SLAVE');
    try {
      await startApp({ ...pair.environment, ...LARGE });
      expect(warnings.mock.calls.map(([message]) => String(message))).toContainEqual(
        expect.stringMatching(
          /^replica-1 applies the primary's writes with a single thread \(slave_parallel_threads=0\)/,
        ),
      );
      warnings.mockClear();
      await replica.query('STOP SLAVE; SET GLOBAL slave_parallel_threads = 4; START SLAVE');
      await startApp({ ...pair.environment, ...LARGE });
      expect(warnings.mock.calls.map(([message]) => String(message))).not.toContainEqual(
        expect.stringContaining('single thread'),
      );
    } finally {
      await replica.query('STOP SLAVE; SET GLOBAL slave_parallel_threads = 4; START SLAVE');
    }
  }, 60_000);

  it('reads no day bounds from a replica whose sessions start below REPEATABLE READ, and warns naming the variable (docs/adr/0020)', async () => {
    const warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const replica = pair.root('replica');
    const refundsByConcert = async (app: TestApp) => {
      const response = await api(app.server, adminToken()).get(
        '/orders?orderStatus=REFUNDED&sort=concertId,desc&size=5',
      );
      expect(response.status).toBe(200);
      return (response.body as { elements: Array<{ orderId: number }> }).elements.map(({ orderId }) => orderId);
    };
    const [expected] = await pair
      .root('primary')
      .query<RowDataPacket[]>(
        `SELECT id FROM orders_test.orders WHERE status = 'REFUNDED' ORDER BY concert_id DESC, id DESC LIMIT 5`,
      );
    const expectedIds = expected.map(({ id }) => Number(id));
    const replicaOf = (app: TestApp) => app.app.get(DatabaseServers).replicas[0];

    const atDefault = await startApp({ ...pair.environment, ...LARGE });
    expect(replicaOf(atDefault).catalog.readsOneSnapshot).toBe(true);
    expect(await refundsByConcert(atDefault)).toEqual(expectedIds);
    await replica.query("SET GLOBAL tx_isolation = 'READ-COMMITTED'");
    try {
      warnings.mockClear();
      const below = await startApp({ ...pair.environment, ...LARGE });
      expect(warnings.mock.calls.map(([message]) => String(message))).toContainEqual(
        expect.stringMatching(
          /^replica-1 starts its sessions at READ-COMMITTED \(tx_isolation\): .* no walk is bounded/,
        ),
      );
      expect(replicaOf(below).catalog.readsOneSnapshot).toBe(false);
      // Served as before the bounds: walked past whatever lies above the matches, to the same orders.
      expect(await refundsByConcert(below)).toEqual(expectedIds);
    } finally {
      await replica.query("SET GLOBAL tx_isolation = 'REPEATABLE-READ'");
    }
  }, 60_000);

  it('serves what only the replica can while it is stopped, saying how far behind, until DB_REPLICA_MAX_STALENESS_S', async () => {
    const tolerant = await startApp({ ...pair.environment, ...LARGE });
    const strict = await startApp({
      ...pair.environment,
      ...LARGE,
      DB_REPLICA_MAX_STALENESS_S: String(MAX_STALENESS_S),
    });
    for (const app of [tolerant, strict]) {
      await waitFor('the replica to serve fresh', async () => {
        const response = await sortedByPrice(app);
        return response.status === 200 && stalenessOf(response) === undefined;
      });
    }

    // The primary takes an order every 100 ms throughout, as during a sale.
    let writing = true;
    let nextId = 2_000_000;
    const writer = (async () => {
      while (writing) {
        nextId += 1;
        await pair.root('primary').query(
          `INSERT INTO orders_test.orders (id, user_id, concert_id, total_price, status, created_at, updated_at)
             VALUES (?, 1, 1, 10.00, 'PAYMENT_PENDING', UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))`,
          [nextId],
        );
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();

    const samples: Array<{ tolerant: Sample; strict: Sample }> = [];
    const memberPages: request.Response[] = [];
    let exported: request.Response | undefined;
    const sample = async (app: TestApp, stoppedAt: number): Promise<Sample> => {
      const response = await sortedByPrice(app);
      const body = response.body as { type?: string };
      return {
        trueLag: (Date.now() - stoppedAt) / 1000,
        status: response.status,
        staleness: stalenessOf(response),
        type: body.type,
        retryAfter: response.headers['retry-after'],
      };
    };
    try {
      await pair.root('replica').query('STOP SLAVE SQL_THREAD');
      const stoppedAt = Date.now();
      while (Date.now() - stoppedAt < STOPPED_MS) {
        samples.push({ tolerant: await sample(tolerant, stoppedAt), strict: await sample(strict, stoppedAt) });
        memberPages.push(await api(tolerant.server, userToken(1)).get('/orders'));
        if (!exported && Date.now() - stoppedAt > 5000) {
          exported = await api(tolerant.server, adminToken()).get(
            withReason('/orders/export.ndjson?sort=totalPrice,asc'),
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    } finally {
      await pair.root('replica').query('START SLAVE SQL_THREAD');
      writing = false;
      await writer;
    }
    await pair.waitInSync();
    const caughtUpAt = Date.now();

    // Served throughout, never refused as too broad; told how far behind once past DB_REPLICA_MAX_LAG_S (2 s) and a
    // check's interval, within LAG_TOLERANCE_S of the truth, never fresher than it is.
    expect(samples.map(({ tolerant: { status } }) => status).filter((status) => status !== 200)).toEqual([]);
    const behind = samples.map(({ tolerant: told }) => told).filter(({ trueLag }) => trueLag > 4);
    expect(behind.length).toBeGreaterThan(10);
    for (const told of behind) {
      expect(told.staleness).toBeDefined();
      expect(told.staleness!).toBeGreaterThanOrEqual(Math.floor(told.trueLag));
      expect(told.staleness! - told.trueLag).toBeLessThanOrEqual(LAG_TOLERANCE_S);
    }
    // Past DB_REPLICA_MAX_STALENESS_S, 503 of its own type with Retry-After; well within it, served.
    const strictly = samples.map(({ strict: told }) => told);
    const past = strictly.filter(({ trueLag }) => trueLag > MAX_STALENESS_S + LAG_TOLERANCE_S - 1);
    expect(past.length).toBeGreaterThan(2);
    for (const told of past) {
      expect(told).toMatchObject({ status: 503, type: '/problems/replicas-behind', retryAfter: '5' });
    }
    for (const told of strictly.filter(({ trueLag }) => trueLag < MAX_STALENESS_S - LAG_TOLERANCE_S)) {
      expect(told.status).toBe(200);
    }
    // An export says it too, once for the whole export.
    expect(exported?.status).toBe(200);
    expect(stalenessOf(exported!)).toBeGreaterThan(4);
    // A member's page is still read fresh, from the primary: no header, and the newest orders in it.
    expect(memberPages.map((page) => page.status).filter((status) => status !== 200)).toEqual([]);
    expect(memberPages.every((page) => stalenessOf(page) === undefined)).toBe(true);

    // Fresh again soon after the replica has caught up: no header, and served again within the stricter bound.
    await waitFor(
      'both to be fresh again',
      async () => {
        const [told, strictly] = await Promise.all([sortedByPrice(tolerant), sortedByPrice(strict)]);
        return told.status === 200 && stalenessOf(told) === undefined && strictly.status === 200;
      },
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    const freshAfterMs = Date.now() - caughtUpAt;
    // The figures docs/SCALING.md quotes.
    const errors = behind.map((told) => told.staleness! - told.trueLag);
    process.stdout.write(
      `replica behind, measured: Data-Staleness minus the true lag ${Math.min(...errors).toFixed(1)}–` +
        `${Math.max(...errors).toFixed(1)} s over ${behind.length} answers; first 503 at a true lag of ` +
        `${strictly.find(({ status }) => status === 503)?.trueLag.toFixed(1)} s (bound ${MAX_STALENESS_S} s); fresh again ${freshAfterMs} ms after catching up\n`,
    );
    expect(freshAfterMs).toBeLessThanOrEqual(3000);
  }, 90_000);

  it('answers 503 of its own, with Retry-After, when the only replica that can serve does not answer', async () => {
    const app = await startApp({ ...pair.environment, ...LARGE });
    await waitFor('the replica to serve', async () => (await sortedByPrice(app)).status === 200);
    await pair.replica.kill();
    try {
      await waitFor('the replica to be found down', async () => (await sortedByPrice(app)).status === 503);
      const refused = await sortedByPrice(app);
      expect(expectProblem(refused, 503)).toMatchObject({ type: '/problems/replicas-behind' });
      expect(refused.headers['retry-after']).toBe('5');
      // What the primary serves is still served.
      expect((await api(app.server, adminToken()).get('/orders')).status).toBe(200);
    } finally {
      await pair.replica.restart();
      await pair.reconnect('replica');
    }
    await pair.waitInSync();
    await waitFor('the replica to serve again', async () => (await sortedByPrice(app)).status === 200, {
      timeoutMs: 15_000,
    });
  }, 60_000);
});
