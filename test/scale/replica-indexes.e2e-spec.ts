import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { RowDataPacket } from 'mysql2/promise';
import request from 'supertest';
import { DataSource, type QueryRunner } from 'typeorm';
import { migrateServers } from '../../src/cli/migrate-servers';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { toDatabaseConfig } from '../../src/config/database.config';
import { validateEnvironment } from '../../src/config/environment';
import { Metrics } from '../../src/observability/metrics';
import { QueryPlanner, type QueryPlan } from '../../src/orders/query-plan';
import { REPLICA_COLUMN, REPLICA_INDEXES } from '../../src/orders/replica-indexes';
import { applyReplicaIndexes, removeReplicaColumn } from '../../src/orders/replica-structures';
import { startReplicatedMysql, type ReplicatedMysql } from '../../launchers/replication';
import { waitFor } from '../../launchers/wait-for';
import { linksOf } from '../support/assertions/link-header';
import { buildDataset, plantOrders, seoul } from '../support/data/dataset';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { adminToken, userToken } from '../support/app/tokens';
import { api, withReason } from '../support/app/api-client';
import { describeReplicated } from '../support/jest/mariadb-only';

/** Below the planted orders: every server counts as too large to sort them whole, as at ten million orders. */
const LARGE = { DB_FULL_SORT_MAX_ORDERS: '10', RATE_LIMIT_PER_MINUTE: '0' };
const REPLICA_INDEX_NAMES = REPLICA_INDEXES.map((index) => index.name).sort();
const SIZE = 7;

/** A filter set of the back-office, as the API takes it, and as the plain SQL states it. */
interface Shape {
  query: string;
  where: string;
  values: unknown[];
}

const stored = (epochMs: number) => new Date(epochMs).toISOString().slice(0, 23).replace('T', ' ');
const SHAPES: Shape[] = [
  { query: '', where: '1 = 1', values: [] },
  { query: 'orderStatus=REFUNDED', where: "status = 'REFUNDED'", values: [] },
  {
    query: 'startDate=2026-03-01&endDate=2026-06-30',
    where: 'created_at >= ? AND created_at < ?',
    values: [stored(seoul(2026, 3, 1)), stored(seoul(2026, 7, 1))],
  },
  {
    query: 'orderStatus=PAYMENT_COMPLETED&startDate=2026-02-01',
    where: "status = 'PAYMENT_COMPLETED' AND created_at >= ?",
    values: [stored(seoul(2026, 2, 1))],
  },
];
/** Every sort the replicas' own indexes read in order; each ends `orderId desc` (docs/API.md §3). */
const SORTS: Array<[api: string, sql: string]> = (
  [
    ['totalPrice', 'total_price'],
    ['userId', 'user_id'],
    ['concertId', 'concert_id'],
    ['status', 'status'],
    ['updatedAt', 'updated_at'],
    ['createdAt', 'created_at'],
  ] as const
).flatMap(([field, column]) =>
  (['asc', 'desc'] as const).map((direction): [string, string] => [
    `${field},${direction}`,
    // The tie-break in the sort's direction (docs/API.md §3).
    `${column} ${direction.toUpperCase()}, id ${direction.toUpperCase()}`,
  ]),
);

/**
 * docs/API.md §14 on a real MariaDB primary and replica in GTID replication: the replica's own indexes, built by the
 * migration command with the binary log off; requests routed to the server that can serve their shape; a shape no
 * serving server can bound refused before any database work.
 */
describeReplicated('replica-only read indexes', () => {
  let pair: ReplicatedMysql;
  const apps: TestApp[] = [];

  /** The migration command's configuration: the maintenance user (root here), the primary and DB_REPLICAS. */
  const migrationConfig = () =>
    toDatabaseConfig(validateEnvironment({ ...pair.environment, DB_USERNAME: 'root', DB_PASSWORD: '' }));
  const migrate = async (): Promise<string[]> => {
    const lines: string[] = [];
    await migrateServers(migrationConfig(), (line) => lines.push(line));
    return lines;
  };

  /** Work on a maintenance connection to the replica, as the migration command has. */
  const onReplica = async (work: (runner: QueryRunner) => Promise<void>): Promise<void> => {
    const config = migrationConfig();
    if (config.type !== 'mysql') throw new Error('the pair is MySQL');
    const source = new DataSource(buildDataSourceOptions({ ...config, ...config.replicas[0] }, 'maintenance'));
    await source.initialize();
    const runner = source.createQueryRunner();
    try {
      await work(runner);
    } finally {
      await runner.release();
      await source.destroy();
    }
  };

  const indexesOn = async (which: 'primary' | 'replica'): Promise<string[]> => {
    const [rows] = await pair
      .root(which)
      .query<RowDataPacket[]>(
        "SELECT DISTINCT INDEX_NAME AS name FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'orders_test' AND TABLE_NAME = 'orders' AND INDEX_NAME LIKE 'idx_replica_%' ORDER BY name",
      );
    return rows.map((row) => String(row.name));
  };
  const columnsOn = async (which: 'primary' | 'replica'): Promise<string[]> => {
    const [rows] = await pair
      .root(which)
      .query<RowDataPacket[]>(
        "SELECT COLUMN_NAME AS name FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'orders_test' AND TABLE_NAME = 'orders' ORDER BY ORDINAL_POSITION",
      );
    return rows.map((row) => String(row.name));
  };
  /** Transactions the replica logged under its own server id: errant, were it ever promoted. */
  const errantTransactions = async (): Promise<string> => {
    const [[row]] = await pair
      .root('replica')
      .query<RowDataPacket[]>('SELECT @@global.gtid_binlog_state AS state, @@global.server_id AS serverId');
    return String(row.state)
      .split(',')
      .filter((gtid) => gtid.split('-')[1] === String(row.serverId))
      .join(',');
  };
  const replicating = async (): Promise<boolean> => {
    const [[status]] = await pair.root('replica').query<RowDataPacket[]>('SHOW REPLICA STATUS');
    return status.Slave_IO_Running === 'Yes' && status.Slave_SQL_Running === 'Yes';
  };

  /** The pair's primary alone, as a deployment without DB_REPLICAS reads it. */
  const singleServer = () =>
    Object.fromEntries(Object.entries(pair.environment).filter(([name]) => name !== 'DB_REPLICAS'));

  async function startApp(environment: Record<string, string>): Promise<TestApp> {
    const app = await startTestApp(environment);
    apps.push(app);
    return app;
  }

  /** The listing's statements each server has run for this application, by server and kind. */
  async function statements(app: TestApp): Promise<Map<string, number>> {
    const metric = app.app.get(Metrics).registry.getSingleMetric('db_client_operation_duration_seconds');
    const counts = new Map<string, number>();
    for (const value of (await metric!.get()).values) {
      // The listing's own statements: the background count folding runs on the primary whatever is listed.
      const listing = ['page', 'count', 'seats'].includes(String(value.labels.statement));
      if ((value as { metricName?: string }).metricName?.endsWith('_count') && listing) {
        const key = `${String(value.labels.server)} ${String(value.labels.statement)}`;
        counts.set(key, (counts.get(key) ?? 0) + value.value);
      }
    }
    return counts;
  }
  /** The servers that ran statements between two readings. */
  const serversBetween = (before: Map<string, number>, after: Map<string, number>) =>
    [
      ...new Set([...after].filter(([key, count]) => count > (before.get(key) ?? 0)).map(([key]) => key.split(' ')[0])),
    ].sort();

  /** Drops the listing's structures on the replica alone, as a replica rebuilt from a copy of the primary lacks them. */
  const dropReplicaIndexes = () =>
    pair
      .root('replica')
      .query(
        `SET SESSION sql_log_bin = 0; ALTER TABLE orders_test.orders ${REPLICA_INDEXES.map((index) => `DROP INDEX ${index.name}`).join(', ')}, DROP COLUMN ${REPLICA_COLUMN.name}; SET SESSION sql_log_bin = 1`,
      );

  /** Lists until the replica, found healthy by the application's checks, answers. */
  const untilReadFromReplica = (app: TestApp) =>
    waitFor('the replica to be read from', async () => {
      const before = await statements(app);
      await list(app, '');
      return serversBetween(before, await statements(app)).includes('replica-1');
    });

  /** The page the plain query reads, without hints, on the primary. */
  async function plainPage(shape: Shape, orderBy: string, page: number): Promise<number[]> {
    const [rows] = await pair
      .root('primary')
      .query<RowDataPacket[]>(
        `SELECT id FROM orders_test.orders WHERE ${shape.where} ORDER BY ${orderBy} LIMIT ? OFFSET ?`,
        [...shape.values, SIZE, (page - 1) * SIZE],
      );
    return rows.map((row) => Number(row.id));
  }

  const list = (app: TestApp, query: string) => api(app.server, adminToken()).get(`/orders?${query}`);

  beforeAll(async () => {
    pair = await startReplicatedMysql();
    await plantOrders(pair.primaryDataSource, buildDataset(23, 300));
    // Fresh statistics, so that each server's estimate of its rows (what routing reads) is the planted count.
    await pair.root('primary').query('ANALYZE TABLE orders_test.orders');
    await pair.waitInSync();
  }, 120_000);

  afterAll(async () => {
    for (const app of apps) await app.close();
    await pair?.stop();
  }, 60_000);

  describe('the migration command with DB_REPLICAS', () => {
    it('builds the listing indexes on the replica alone, leaves no errant transaction, and replication runs on', async () => {
      const lines = await migrate();
      expect(lines).toEqual([
        'primary: no pending migration',
        expect.stringMatching(/^replica-1 \(127\.0\.0\.1:\d+\): built created_month, built idx_replica_/),
      ]);
      expect(await indexesOn('replica')).toEqual(REPLICA_INDEX_NAMES);
      expect(await indexesOn('primary')).toEqual([]);
      expect(await columnsOn('replica')).toEqual([...(await columnsOn('primary')), REPLICA_COLUMN.name]);
      expect(await errantTransactions()).toBe('');
      // A write on the primary still reaches the replica, through its new indexes.
      await pair.root('primary').query("UPDATE orders_test.orders SET status = 'REFUNDED' WHERE id = 1");
      await pair.waitInSync();
      const [[row]] = await pair
        .root('replica')
        .query<RowDataPacket[]>('SELECT status FROM orders_test.orders WHERE id = 1');
      expect(row.status).toBe('REFUNDED');
      expect(await replicating()).toBe(true);
    }, 120_000);

    it('changes nothing when run again', async () => {
      const [[before]] = await pair
        .root('replica')
        .query<RowDataPacket[]>('SELECT @@global.gtid_binlog_state AS state');
      const lines = await migrate();
      expect(lines[1]).toMatch(/read indexes up to date$/);
      const [[after]] = await pair.root('replica').query<RowDataPacket[]>('SELECT @@global.gtid_binlog_state AS state');
      expect(after.state).toBe(before.state);
      expect(await indexesOn('replica')).toEqual(REPLICA_INDEX_NAMES);
    }, 60_000);

    it('computes the replica’s own column for every row the primary writes, so that its indexes stay whole', async () => {
      await pair
        .root('primary')
        .query(
          "UPDATE orders_test.orders SET created_at = '2026-05-31 23:59:59.999', updated_at = updated_at + INTERVAL 1 SECOND WHERE id = 2",
        );
      await pair.waitInSync();
      const replica = pair.root('replica');
      const [[row]] = await replica.query<RowDataPacket[]>(
        `SELECT ${REPLICA_COLUMN.name} AS month FROM orders_test.orders WHERE id = 2`,
      );
      expect(Number(row.month)).toBe(202605);
      const [checked] = await replica.query<RowDataPacket[]>('CHECK TABLE orders_test.orders EXTENDED');
      expect(checked.map((result) => `${String(result.Msg_type)}: ${String(result.Msg_text)}`)).toEqual(['status: OK']);
    });

    it('takes the replica’s own column off while the primary adds one, so that rows keep landing in their columns', async () => {
      await onReplica(async (runner) => {
        expect(await removeReplicaColumn(runner)).toContain(REPLICA_COLUMN.name);
        // A migration of the primary's adds a column; its rows then replicate by position.
        await pair.root('primary').query('ALTER TABLE orders_test.orders ADD COLUMN channel VARCHAR(8) NULL');
        await pair.root('primary').query("UPDATE orders_test.orders SET channel = 'web' WHERE id = 3");
        await pair.waitInSync();
        await applyReplicaIndexes(runner);
      });
      const [[row]] = await pair
        .root('replica')
        .query<RowDataPacket[]>(`SELECT channel, ${REPLICA_COLUMN.name} AS month FROM orders_test.orders WHERE id = 3`);
      expect(row.channel).toBe('web');
      expect(await columnsOn('replica')).toEqual([...(await columnsOn('primary')), REPLICA_COLUMN.name]);
      expect(await errantTransactions()).toBe('');
      expect(await replicating()).toBe(true);
      // Back to the schema the migrations make, the same way round.
      await onReplica(async (runner) => {
        await removeReplicaColumn(runner);
        await pair.root('primary').query('ALTER TABLE orders_test.orders DROP COLUMN channel');
        await pair.waitInSync();
        await applyReplicaIndexes(runner);
      });
      expect(await replicating()).toBe(true);
    }, 120_000);

    it('brings back a replica that lost them, as one rebuilt from a copy of the primary has', async () => {
      await dropReplicaIndexes();
      expect(await indexesOn('replica')).toEqual([]);
      await migrate();
      expect(await indexesOn('replica')).toEqual(REPLICA_INDEX_NAMES);
      expect(await errantTransactions()).toBe('');
      expect(await replicating()).toBe(true);
    }, 60_000);

    it('brings a replica of 2.6, with a pair of indexes per sort, to one per sort by renaming and dropping, building none', async () => {
      // 2.6's names and its ascending twins, whose `id DESC` served the tie-break that was always descending.
      await pair.root('replica').query(
        `SET SESSION sql_log_bin = 0;
         ALTER TABLE orders_test.orders RENAME INDEX idx_replica_orders_total_price TO idx_replica_orders_total_price_desc,
           ADD INDEX idx_replica_orders_total_price_asc (total_price, id DESC, created_at, status);
         SET SESSION sql_log_bin = 1`,
      );
      const lines = await migrate();
      expect(lines[1].split(': ').slice(1).join(': ').split(', ').sort()).toEqual([
        'dropped idx_replica_orders_total_price_asc',
        'renamed idx_replica_orders_total_price_desc to idx_replica_orders_total_price',
      ]);
      expect(await indexesOn('replica')).toEqual(REPLICA_INDEX_NAMES);
      expect(await errantTransactions()).toBe('');
      expect(await replicating()).toBe(true);
    }, 60_000);
  });

  describe('routing by what each server holds, the table too large to sort whole', () => {
    let app: TestApp;

    beforeAll(async () => {
      await migrate();
      app = await startApp({ ...pair.environment, ...LARGE });
      await untilReadFromReplica(app);
    }, 60_000);

    // A date range sorted by update time is the merge of its months, each walked in update order (month-merge).
    const bounded = SHAPES.flatMap((shape) => SORTS.map(([sort, orderBy]) => ({ shape, sort, orderBy })));
    it.each(bounded)(
      'serves $shape.query sorted by $sort from the replica, with the plain query’s rows in its order',
      async ({ shape, sort, orderBy }) => {
        for (const page of [1, 3]) {
          const before = await statements(app);
          const response = await list(
            app,
            [shape.query, `sort=${sort}`, `size=${SIZE}`, `page=${page}`].filter(Boolean).join('&'),
          );
          expect(response.status).toBe(200);
          expect(
            (response.body as { elements: Array<{ orderId: number }> }).elements.map((order) => order.orderId),
          ).toEqual(await plainPage(shape, orderBy, page));
          expect(serversBetween(before, await statements(app))).toEqual(['replica-1']);
        }
      },
    );

    it.each([
      // A status alone, by update time: its own stretch of the index, every entry a match.
      {
        shape: SHAPES[1],
        sort: 'updatedAt,desc',
        rule: 'index-order',
        index: 'idx_replica_orders_status_updated',
      },
      // Within dates, by price: the status's stretch walked, each entry's date checked, not the whole price index.
      { shape: SHAPES[3], sort: 'totalPrice,desc', rule: 'walk', index: 'idx_replica_orders_status_total_price' },
      { shape: SHAPES[3], sort: 'totalPrice,asc', rule: 'walk', index: 'idx_replica_orders_status_total_price' },
    ])(
      'reads $shape.query sorted by $sort by its status’s stretch: $rule of $index',
      async ({ shape, sort, rule, index }) => {
        // The planner weighs a date range by its folded days: the service folds the planted orders within a second.
        await waitFor('the planted orders folded into the replica’s daily totals', async () => {
          const [[{ folded }]] = await pair
            .root('replica')
            .query<RowDataPacket[]>('SELECT COALESCE(SUM(orders), 0) AS folded FROM orders_test.order_daily_counts');
          const [[{ placed }]] = await pair
            .root('primary')
            .query<RowDataPacket[]>('SELECT COUNT(*) AS placed FROM orders_test.orders');
          return Number(folded) === Number(placed);
        });
        const planner = jest.spyOn(QueryPlanner.prototype, 'plan');
        try {
          const before = await statements(app);
          const response = await list(app, `${shape.query}&sort=${sort}&size=${SIZE}`);
          expect(response.status).toBe(200);
          expect(serversBetween(before, await statements(app))).toEqual(['replica-1']);
          // The planner is asked once per server the router weighs; the replica's plan is the one that read.
          const plans = planner.mock.results.map((result) => result.value as QueryPlan | undefined);
          expect(plans).toContainEqual(expect.objectContaining({ rule, indexes: [index] }));
        } finally {
          planner.mockRestore();
        }
      },
    );

    it('follows the links of a merged range, both ways, through the plain query’s rows', async () => {
      for (const [shape, sort, orderBy] of [
        [SHAPES[3], 'updatedAt,asc', 'updated_at ASC, id ASC'],
        [SHAPES[2], 'updatedAt,desc', 'updated_at DESC, id DESC'],
      ] as const) {
        const [rows] = await pair
          .root('primary')
          .query<RowDataPacket[]>(`SELECT id FROM orders_test.orders WHERE ${shape.where} ORDER BY ${orderBy}`, [
            ...shape.values,
          ]);
        const expected = rows.map((row) => Number(row.id));
        const idsOf = (response: request.Response) =>
          (response.body as { elements: Array<{ orderId: number }> }).elements.map((order) => order.orderId);
        const before = await statements(app);
        let response = await list(app, `${shape.query}&sort=${sort}&size=${SIZE}`);
        const walked = idsOf(response);
        for (let next = linksOf(response.headers.link).next; next; next = linksOf(response.headers.link).next) {
          response = await api(app.server, adminToken()).get(next);
          expect(response.status).toBe(200);
          walked.push(...idsOf(response));
        }
        expect(walked).toEqual(expected);
        // Back from the last page by `prev`, page by page.
        const back: number[] = [];
        for (let prev = linksOf(response.headers.link).prev; prev; prev = linksOf(response.headers.link).prev) {
          response = await api(app.server, adminToken()).get(prev);
          back.unshift(...idsOf(response));
        }
        expect(back).toEqual(expected.slice(0, back.length));
        expect(serversBetween(before, await statements(app))).toEqual(['replica-1']);
      }
    });

    it('refuses a range sorted by update time whose edges hold more orders than a server sorts in time, after its count alone', async () => {
      // Less than half of March and of April: both parts are read whole and sorted, about 20 orders.
      const edges = 'startDate=2026-03-20&endDate=2026-04-12';
      const before = await statements(app);
      const refused = await list(app, `${edges}&sort=updatedAt,desc&size=${SIZE}`);
      expect(refused.status).toBe(422);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.body).toMatchObject({
        type: '/problems/query-too-broad',
        detail: expect.stringMatching(
          /^Sorting by updatedAt with these filters reads \d+ orders for every page.*at most 10\)/,
        ),
      });
      // The count told it, and no page was read.
      const counted = [...(await statements(app))].filter(([key, count]) => count > (before.get(key) ?? 0));
      expect(counted.map(([key]) => key)).toEqual(['replica-1 count']);
      // An export alike, before its first byte.
      const exported = await api(app.server, adminToken()).get(
        withReason(`/orders/export.csv?${edges}&sort=updatedAt,asc`),
      );
      expect(exported.status).toBe(422);
    });

    it('serves a date range sorted by update time that holds no more orders than that, with the plain query’s rows', async () => {
      // A day of the planted orders with a few orders, up to the limit of 10.
      const [[{ day }]] = await pair.root('primary').query<RowDataPacket[]>(
        `SELECT DATE_FORMAT(created_at + INTERVAL 9 HOUR, '%Y-%m-%d') AS day FROM orders_test.orders
          GROUP BY day HAVING COUNT(*) BETWEEN 2 AND 10 ORDER BY day LIMIT 1`,
      );
      const text = String(day);
      const [year, month, dayOfMonth] = text.split('-').map(Number);
      const shape: Shape = {
        query: `startDate=${text}&endDate=${text}`,
        where: 'created_at >= ? AND created_at < ?',
        values: [stored(seoul(year, month, dayOfMonth)), stored(seoul(year, month, dayOfMonth + 1))],
      };
      const response = await list(app, `${shape.query}&sort=updatedAt,desc&size=${SIZE}`);
      expect(response.status).toBe(200);
      const ids = (response.body as { elements: Array<{ orderId: number }> }).elements.map((order) => order.orderId);
      expect(ids.length).toBeGreaterThan(1);
      expect(ids).toEqual(await plainPage(shape, 'updated_at DESC, id DESC', 1));
    });

    it.each([
      // A merged range (month-merge), and a status walked in price order.
      [3, 'updatedAt,desc', 'updated_at DESC, id DESC'],
      [1, 'totalPrice,desc', 'total_price DESC, id DESC'],
    ])(
      'exports shape %i sorted by %s from the replica, every order in the plain query’s order',
      async (shapeIndex, sort, orderBy) => {
        const shape = SHAPES[shapeIndex];
        const response = await api(app.server, adminToken()).get(
          withReason(`/orders/export.ndjson?${shape.query}&sort=${sort}`),
        );
        expect(response.status).toBe(200);
        const ids = response.text
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as { orderId?: number })
          .filter((element) => element.orderId !== undefined)
          .map((element) => element.orderId);
        const [rows] = await pair
          .root('primary')
          .query<RowDataPacket[]>(
            `SELECT id FROM orders_test.orders WHERE ${shape.where} ORDER BY ${orderBy}`,
            shape.values,
          );
        expect(ids.length).toBeGreaterThan(0);
        expect(ids).toEqual(rows.map((row) => Number(row.id)));
      },
    );
  });

  describe('no serving server can bound the shape', () => {
    it('refuses at once, before any database work, on a single server; what any index bounds is served', async () => {
      const single = singleServer();
      const app = await startApp({ ...single, ...LARGE });
      const before = await statements(app);
      const refused = await list(app, 'orderStatus=REFUNDED&sort=totalPrice,asc');
      expect(refused.status).toBe(422);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.body).toMatchObject({
        type: '/problems/query-too-broad',
        status: 422,
        detail: expect.stringMatching(/by totalPrice.*read replica.*userId or consertId filter.*createdAt or orderId/),
      });
      expect(await statements(app)).toEqual(before);
      // Exports alike, before their first byte.
      const exported = await api(app.server, adminToken()).get(withReason('/orders/export.csv?sort=updatedAt,desc'));
      expect(exported.status).toBe(422);
      expect(await statements(app)).toEqual(before);
      // Bounded on any server: a sort an index reads in order, and a member's orders in any sort.
      expect((await list(app, 'orderStatus=REFUNDED&sort=createdAt,desc')).status).toBe(200);
      expect((await list(app, 'sort=orderId,asc&page=3')).status).toBe(200);
      const member = await api(app.server, userToken(1)).get('/orders?sort=totalPrice,desc');
      expect(member.status).toBe(200);
    }, 60_000);

    it('serves every shape on a single server whose table is small enough to sort whole', async () => {
      const single = singleServer();
      const app = await startApp({ ...single, RATE_LIMIT_PER_MINUTE: '0' });
      const response = await list(app, `sort=totalPrice,asc&size=${SIZE}&page=2`);
      expect(response.status).toBe(200);
      expect(
        (response.body as { elements: Array<{ orderId: number }> }).elements.map((order) => order.orderId),
      ).toEqual(await plainPage(SHAPES[0], 'total_price ASC, id ASC', 2));
    }, 60_000);

    it('detects a replica without its indexes: sends it only what it can serve, and refuses the rest', async () => {
      await dropReplicaIndexes();
      try {
        const app = await startApp({ ...pair.environment, ...LARGE });
        await untilReadFromReplica(app);
        const before = await statements(app);
        const refused = await list(app, 'sort=totalPrice,asc');
        expect(refused.status).toBe(422);
        expect(await statements(app)).toEqual(before);
        // The default sort is served by the replica as before.
        const served = await list(app, 'orderStatus=CANCELLED');
        expect(served.status).toBe(200);
        expect(serversBetween(before, await statements(app))).toEqual(['replica-1']);
      } finally {
        await migrate();
      }
    }, 60_000);

    it('forgets what a replica holds the moment a statement finds an index gone, and refuses instead of failing', async () => {
      const app = await startApp({ ...pair.environment, ...LARGE });
      const sortedByPrice = () => list(app, 'sort=totalPrice,asc');
      await waitFor('the replica to serve', async () => (await sortedByPrice()).status === 200);
      await dropReplicaIndexes();
      try {
        // The catalog read at start still names the indexes: the first statement finds one missing.
        const refused = await sortedByPrice();
        expect({ status: refused.status, type: (refused.body as { type: string }).type }).toEqual({
          status: 422,
          type: '/problems/query-too-broad',
        });
        // What the replica can serve, it still serves.
        expect((await list(app, 'sort=createdAt,desc')).status).toBe(200);
      } finally {
        await migrate();
      }
      // The periodic read of what each server holds (every 30 s) finds them again.
      await waitFor('the rebuilt indexes to be read', async () => (await sortedByPrice()).status === 200, {
        timeoutMs: 45_000,
        intervalMs: 500,
      });
    }, 90_000);
  });
});
