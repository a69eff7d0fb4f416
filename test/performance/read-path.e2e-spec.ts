import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { migrateServers } from '../../src/cli/migrate-servers';
import { toDatabaseConfig } from '../../src/config/database.config';
import { validateEnvironment } from '../../src/config/environment';
import { DatabaseServers } from '../../src/database/database-servers';
import { REPLICATED_DATABASE, startReplicatedMysql, type ReplicatedMysql } from '../../launchers/replication';
import { api } from '../support/app/api-client';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { adminToken, userToken } from '../support/app/tokens';
import { buildDataset, plantOrders } from '../support/data/dataset';
import { describeReplicated } from '../support/jest/mariadb-only';

/** docs/ARCHITECTURE.md, "A page's path": the service's own functions between the controller and the driver. */
const MOST_FRAMES = 6;
/** Below the planted orders: a sort by price is served only by the replica's own indexes. */
const REPLICA_ONLY = { DB_FULL_SORT_MAX_ORDERS: '10', RATE_LIMIT_PER_MINUTE: '0' };

/** A statement as mysql2 was handed it: which server, what it reads, and the service's frames that led to it. */
interface Sent {
  port: number;
  reads: 'page' | 'seats' | 'other';
  frames: string[];
}

type Query = (this: { config: { port: number } }, ...args: unknown[]) => unknown;

/** The project's frames of a V8 stack (async frames included): those in its own src/ files, none of a library's
 * (whose source maps may name a src/ of their own). */
const projectFrames = (stack: string): string[] =>
  stack
    .split('\n')
    .map((line) => /^\s*at (?:async )?(.+) \(.*?\/(src\/[^:]+):\d+:\d+\)$/.exec(line))
    .filter((frame) => frame !== null && !frame[0].includes('/node_modules/') && existsSync(frame[2]))
    .map((frame) => `${frame![1]} (${frame![2]})`);

const readsOf = (sql: string): Sent['reads'] =>
  /^SELECT `o`\.`id` AS `id`/.test(sql) ? 'page' : sql.includes('FROM `order_seats`') ? 'seats' : 'other';

/**
 * A page's statements reach the driver a few frames from the controller: the controller, the service, the
 * repository's unit of work, the router that runs it and the session that sends (docs/ARCHITECTURE.md). Counted as V8
 * sees them at mysql2's `query()`, on a primary alone and on a replica.
 */
describeReplicated('a page’s path to the driver', () => {
  let pair: ReplicatedMysql;
  const apps: TestApp[] = [];
  const sent: Sent[] = [];
  let restore: () => void = () => undefined;

  /** Every statement any pool of `app` sends from now on, recorded with its stack. */
  async function recordStatements(app: TestApp): Promise<void> {
    const { primary } = app.app.get(DatabaseServers);
    const runner = primary.dataSource.createQueryRunner();
    await runner.connect();
    // The class every pooled connection is of: its `query` is where the driver takes a statement.
    const connection = (runner as unknown as { databaseConnection: object }).databaseConnection;
    await runner.release();
    let prototype = Object.getPrototypeOf(connection) as Record<string, unknown>;
    while (!Object.hasOwn(prototype, 'query')) prototype = Object.getPrototypeOf(prototype) as Record<string, unknown>;
    const original = prototype.query as Query;
    if (original.name === 'recorded') return;
    prototype.query = function recorded(this: { config: { port: number } }, ...args: unknown[]) {
      const sql = typeof args[0] === 'string' ? args[0] : (args[0] as { sql: string }).sql;
      sent.push({ port: this.config.port, reads: readsOf(sql), frames: projectFrames(new Error().stack ?? '') });
      return original.apply(this, args);
    };
    restore = () => (prototype.query = original);
  }

  beforeAll(async () => {
    Error.stackTraceLimit = 100;
    pair = await startReplicatedMysql();
    await plantOrders(pair.primaryDataSource, buildDataset(44, 200));
    await pair.root('primary').query(`ANALYZE TABLE ${REPLICATED_DATABASE}.orders`);
    await migrateServers(
      toDatabaseConfig(validateEnvironment({ ...pair.environment, DB_USERNAME: 'root', DB_PASSWORD: '' })),
      () => undefined,
    );
    await pair.waitInSync();
    apps.push(await startTestApp({ ...pair.environment, ...REPLICA_ONLY }));
    apps.push(await startTestApp({ ...pair.environment, ...REPLICA_ONLY, DB_REPLICAS: undefined }));
    await recordStatements(apps[0]);
  }, 120_000);

  afterAll(async () => {
    restore();
    Error.stackTraceLimit = 10;
    for (const app of apps) await app.close();
    await pair?.stop();
  });

  it(`sends a page and its seats within ${MOST_FRAMES} of the service’s frames, on a primary alone and on a replica`, async () => {
    const [withReplica, primaryAlone] = apps;
    const primaryPort = Number(pair.environment.DB_PORT);
    const pages = [
      // Only the replica holds an index that sorts by price: it serves.
      api(withReplica.server, adminToken()).get('/orders?sort=totalPrice,desc&size=5'),
      api(primaryAlone.server, adminToken()).get('/orders?orderStatus=REFUNDED&size=5'),
      api(primaryAlone.server, userToken(7)).get('/orders?size=5&page=2'),
    ];
    for (const page of pages) expect((await page).status).toBe(200);

    const listing = sent.filter(({ reads }) => reads !== 'other');
    expect(new Set(listing.map(({ reads }) => reads))).toEqual(new Set(['page', 'seats']));
    // Both kinds of server took the listing's statements.
    expect(listing.some(({ port }) => port === primaryPort)).toBe(true);
    expect(listing.some(({ port }) => port !== primaryPort)).toBe(true);
    for (const { reads, port, frames } of listing) {
      const where = `${reads} on ${port === primaryPort ? 'the primary' : 'a replica'}`;
      expect({ where, frames: frames.length <= MOST_FRAMES ? 'within' : frames }).toEqual({ where, frames: 'within' });
      // The path starts at the controller: the frames are the request's, not a background task's.
      expect(frames.at(-1)).toMatch(/^OrdersController\.list /);
    }
  });
});
