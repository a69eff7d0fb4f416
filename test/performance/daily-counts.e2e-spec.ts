import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createConnection, type Connection, type RowDataPacket } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../src/database/data-source-options';
import { CountChangesOffTheWritePath1764028800000 } from '../../src/database/migrations/1764028800000-CountChangesOffTheWritePath';
import { PENDING_ROWS } from '../../src/orders/counting/daily-counts';
import { OrderCountFolding } from '../../src/orders/counting/order-count-folding';
import type { OrderFilters } from '../../src/orders/model';
import { PagePlans } from '../../src/orders/page-plans';
import { CountStatements, sizesOf } from '../../src/orders/statements/count-statement';
import { PageStatements } from '../../src/orders/statements/page-statement';
import { MonotonicClock } from '../../src/common/time/clock';
import { DatabaseServers } from '../../src/database/database-servers';
import { RequestDeadline } from '../../src/database/request-deadline';
import { ReadSession } from '../../src/database/read-session';
import { waitFor } from '../../launchers/wait-for';
import { seedDataset } from '../support/data/dataset';
import { writeLikeASale } from '../support/data/sale';
import {
  freshMysqlDatabase,
  maintenanceOptions,
  mysqlEnvironment,
  type MysqlTarget,
} from '../support/app/test-database';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { adminToken } from '../support/app/tokens';
import { api } from '../support/app/api-client';

const DAY_MS = 86_400_000;
/** Writers place orders on these UTC days, and move some across the midnight between them. */
const FIRST_DAY = Date.UTC(2026, 2, 10);
/** Ten minutes either side of the midnights after FIRST_DAY, so that re-dating crosses them. */
const nearTheMidnights = (random: () => number) =>
  FIRST_DAY + (1 + Math.floor(random() * 2)) * DAY_MS + Math.floor((random() - 0.5) * 1_200_000);

/** The totals the listing reports, each with the WHERE of the COUNT(*) it must equal. */
const TOTALS: Array<{ name: string; query: string; filters: OrderFilters; where: string }> = [
  { name: 'every order', query: '', filters: {}, where: '' },
  {
    name: 'one status',
    query: 'orderStatus=CANCELLED',
    filters: { status: 'CANCELLED' },
    where: "WHERE status = 'CANCELLED'",
  },
  {
    name: 'whole days around the writers’ midnights',
    query: 'startDate=2026-03-10T09:00:00&endDate=2026-03-13T08:59:59',
    filters: { createdFrom: FIRST_DAY, createdBefore: FIRST_DAY + 3 * DAY_MS },
    where: `WHERE created_at >= '2026-03-10 00:00:00' AND created_at < '2026-03-13 00:00:00'`,
  },
  {
    name: 'a status within a range with partial first and last days',
    query: 'orderStatus=PAYMENT_COMPLETED&startDate=2026-03-10T15:30:00&endDate=2026-03-12T20:00:00',
    filters: {
      status: 'PAYMENT_COMPLETED',
      createdFrom: Date.UTC(2026, 2, 10, 6, 30),
      createdBefore: Date.UTC(2026, 2, 12, 11, 0, 1),
    },
    where: `WHERE status = 'PAYMENT_COMPLETED' AND created_at >= '2026-03-10 06:30:00' AND created_at < '2026-03-12 11:00:01'`,
  },
];

function connectTo(target: MysqlTarget): Promise<Connection> {
  return createConnection({
    host: target.host,
    port: target.port,
    user: target.user,
    password: target.password,
    database: target.database,
  });
}

/**
 * The (day, status)s whose orders lie outside the bounds the listing would read for them (docs/adr/0020): the totals'
 * widened by the counting rows not folded yet. None, where the triggers and the fold keep them.
 */
async function outsideTheirBounds(
  query: (sql: string) => Promise<Array<Record<string, unknown>>>,
  dialect: 'mysql' | 'sqlite',
): Promise<string[]> {
  const day = dialect === 'mysql' ? "DATE_FORMAT(created_at, '%Y-%m-%d')" : 'date(created_at)';
  const keptDay = dialect === 'mysql' ? "DATE_FORMAT(day, '%Y-%m-%d')" : 'day';
  const rows = await query(`
    SELECT o.day, o.status FROM (
      SELECT ${day} AS day, status, MIN(id) AS lo, MAX(id) AS hi, MIN(concert_id) AS lc, MAX(concert_id) AS hc
      FROM orders GROUP BY 1, 2
    ) o LEFT JOIN (
      SELECT ${keptDay} AS day, status, MIN(lo) AS lo, MAX(hi) AS hi, MIN(lc) AS lc, MAX(hc) AS hc FROM (
        SELECT day, status, first_id AS lo, last_id AS hi, lowest_concert_id AS lc, highest_concert_id AS hc
          FROM order_daily_counts
        UNION ALL SELECT day, status, order_id, order_id, concert_id, concert_id FROM order_count_changes
        UNION ALL SELECT day, to_status, order_id, order_id, concert_id, concert_id FROM order_count_moves
      ) kept GROUP BY 1, 2
    ) b ON b.day = o.day AND b.status = o.status
    WHERE b.lo IS NULL OR b.lo > o.lo OR b.hi < o.hi OR b.lc > o.lc OR b.hc < o.hc`);
  return rows.map((row) => `${String(row.day)} ${String(row.status)}`);
}

/**
 * docs/API.md §7: totals stay exact under the writes of a sale, the triggers
 * behind them never make two writers wait for each other or deadlock, and
 * the background fold changes nothing a reader can see.
 */
describe('exact totals under a sale’s concurrent writes on MariaDB', () => {
  let target: MysqlTarget;
  let context: TestApp;

  beforeAll(async () => {
    target = await freshMysqlDatabase('daily_counts');
    context = await startTestApp({ ...mysqlEnvironment(target), RATE_LIMIT_PER_MINUTE: '0', DB_POOL_SIZE: '4' });
    await seedDataset(context.dataSource, 17);
  }, 60_000);

  afterAll(async () => {
    await context?.close();
  });

  /** The repository's count and COUNT(*) at one snapshot: what a listing would answer at that moment, and the truth. */
  async function countsAtOneSnapshot(): Promise<Array<{ name: string; listed: number; counted: number }>> {
    const counts = context.app.get(CountStatements);
    const { primary } = context.app.get(DatabaseServers);
    const runner = context.dataSource.createQueryRunner();
    try {
      await runner.query('START TRANSACTION WITH CONSISTENT SNAPSHOT');
      const results = [];
      for (const { name, filters, where } of TOTALS) {
        const deadline = new RequestDeadline(Infinity, new MonotonicClock());
        const session = new ReadSession(runner, deadline, primary);
        // The count a page whose total is unknown sends (docs/API.md §5).
        const [[row]] = await session.read<[Array<Record<string, number | string | null>>]>('count', [
          counts.statement(filters, { withTable: false }),
        ]);
        const listed = sizesOf(row, undefined).matching;
        const [{ total }] = (await runner.query(`SELECT COUNT(*) AS total FROM orders ${where}`)) as Array<{
          total: number;
        }>;
        results.push({ name, listed, counted: Number(total) });
      }
      await runner.query('COMMIT');
      return results;
    } finally {
      await runner.release();
    }
  }

  const sameAsCounted = (results: Array<{ name: string; listed: number; counted: number }>) =>
    results.map(({ name, counted }) => ({ name, listed: counted }));

  it('stay exact during and after 16 writers, none of which fails, with listings and folding alongside', async () => {
    const connections = await Promise.all(Array.from({ length: 16 }, () => connectTo(target)));
    let writing = true;
    const snapshots: Array<Array<{ name: string; listed: number; counted: number }>> = [];
    const listingStatuses = new Set<number>();
    try {
      const writers = Promise.all(
        connections.map((connection, index) =>
          writeLikeASale(connection, index + 1, { operations: 150, createdAt: nearTheMidnights }),
        ),
      );
      const readers = (async () => {
        while (writing) {
          snapshots.push(await countsAtOneSnapshot());
          const response = await api(context.server, adminToken()).get('/orders?orderStatus=PAYMENT_PENDING');
          listingStatuses.add(response.status);
        }
      })();
      // Any writer's error (a deadlock, a lock wait timeout) rejects this, and fails the test.
      await writers.finally(() => (writing = false));
      await readers;
    } finally {
      await Promise.all(connections.map((connection) => connection.end()));
    }
    expect(snapshots.length).toBeGreaterThan(0);
    for (const snapshot of snapshots) expect(snapshot).toMatchObject(sameAsCounted(snapshot));
    expect([...listingStatuses]).toEqual([200]);
    const after = await countsAtOneSnapshot();
    expect(after).toMatchObject(sameAsCounted(after));
    expect(await outsideTheirBounds((sql) => context.dataSource.query(sql), 'mysql')).toEqual([]);
  }, 180_000);

  it.each(TOTALS.map((total) => [total.name, total] as const))(
    'answers totalElementCount for %s equal to COUNT(*) once the writes are over',
    async (_, { query, where }) => {
      const [{ total }] = await context.dataSource.query<Array<{ total: number }>>(
        `SELECT COUNT(*) AS total FROM orders ${where}`,
      );
      const response = await api(context.server, adminToken()).get(`/orders?${query}`);
      expect(response.status).toBe(200);
      expect((response.body as { totalElementCount: number }).totalElementCount).toBe(Number(total));
    },
  );

  /** The ids of a listing's first five elements, as an administrator is answered. */
  async function firstListedIds(query: string): Promise<number[]> {
    const response = await api(context.server, adminToken()).get(`/orders?${query}&size=5`);
    expect(response.status).toBe(200);
    return (response.body as { elements: Array<{ orderId: number }> }).elements.map(({ orderId }) => orderId);
  }

  /** The first five ids that ORDER BY over `orders` gives: what a listing must answer. */
  async function firstIdsWhere(where: string, orderBy: string, parameters: unknown[] = []): Promise<number[]> {
    const rows = await context.dataSource.query<Array<{ id: number }>>(
      `SELECT id FROM orders WHERE ${where} ORDER BY ${orderBy} LIMIT 5`,
      parameters,
    );
    return rows.map(({ id }) => Number(id));
  }

  it('lists a closed range by id and by concert as ORDER BY over orders, with an order re-dated into it and one moved to another concert (docs/adr/0020)', async () => {
    const range = { from: '2026-03-10 00:00:00', before: '2026-03-13 00:00:00' };
    // The service's zone is nine hours ahead of UTC: these are the UTC days of `range`.
    const query = 'orderStatus=PAYMENT_COMPLETED&startDate=2026-03-10T09:00:00&endDate=2026-03-13T08:59:59';
    const firstIds = (sort: string) => firstListedIds(`${query}&sort=${sort}`);
    const expectedIds = (orderBy: string) =>
      firstIdsWhere(`status = 'PAYMENT_COMPLETED' AND created_at >= ? AND created_at < ?`, orderBy, [
        range.from,
        range.before,
      ]);
    // Everything folded, then folding only when told: the first look reads the totals' bounds widened by the
    // counting rows of the two changes below.
    const folding = context.app.get(OrderCountFolding);
    await folding.stop();
    await folding.foldPending();
    // The newest order of all, placed after the range and re-dated into it: its id is past every bound the range's
    // days held; and an order of the range moved to a concert past theirs.
    const placed = await context.dataSource.query<{ insertId: number }>(
      `INSERT INTO orders (user_id, concert_id, total_price, status, created_at, updated_at)
       VALUES (1, 1, 10.00, 'PAYMENT_COMPLETED', '2026-03-20 10:00:00', '2026-03-20 10:00:00')`,
    );
    const redated = Number(placed.insertId);
    await context.dataSource.query(`UPDATE orders SET created_at = '2026-03-11 10:00:00' WHERE id = ?`, [redated]);
    const [{ id: moved }] = await context.dataSource.query<Array<{ id: number }>>(
      `SELECT MIN(id) AS id FROM orders WHERE status = 'PAYMENT_COMPLETED' AND created_at >= ? AND created_at < ?`,
      [range.from, range.before],
    );
    await context.dataSource.query('UPDATE orders SET concert_id = 9000000 WHERE id = ?', [moved]);

    for (const folded of [false, true]) {
      if (folded) await folding.foldPending();
      const byId = await firstIds('orderId,desc');
      expect({ folded, byId }).toEqual({ folded, byId: await expectedIds('id DESC') });
      expect(byId[0]).toBe(redated);
      const byConcert = await firstIds('concertId,desc');
      expect({ folded, byConcert }).toEqual({ folded, byConcert: await expectedIds('concert_id DESC, id DESC') });
      expect(byConcert[0]).toBe(Number(moved));
      expect(await firstIds('orderId,asc')).toEqual(await expectedIds('id ASC'));
    }
  });

  it('lists a status alone newest first and by concert, and an open range by id, as ORDER BY over orders, with orders placed and moved past every bound their days held (docs/adr/0020)', async () => {
    const folding = context.app.get(OrderCountFolding);
    await folding.stop();
    await folding.foldPending();
    // A refund of a day after every refund so far, by status change; and a refund moved to a concert past every one.
    const placed = await context.dataSource.query<{ insertId: number }>(
      `INSERT INTO orders (user_id, concert_id, total_price, status, created_at, updated_at)
       VALUES (1, 1, 10.00, 'PAYMENT_COMPLETED', '2027-02-02 10:00:00', '2027-02-02 10:00:00')`,
    );
    const refundedLast = Number(placed.insertId);
    await context.dataSource.query(`UPDATE orders SET status = 'REFUNDED' WHERE id = ?`, [refundedLast]);
    const [{ id: movedRefund }] = await context.dataSource.query<Array<{ id: number }>>(
      `SELECT MIN(id) AS id FROM orders WHERE status = 'REFUNDED'`,
    );
    await context.dataSource.query('UPDATE orders SET concert_id = 9000001 WHERE id = ?', [movedRefund]);

    for (const folded of [false, true]) {
      if (folded) await folding.foldPending();
      const newest = await firstListedIds('orderStatus=REFUNDED');
      expect({ folded, newest }).toEqual({
        folded,
        newest: await firstIdsWhere(`status = 'REFUNDED'`, 'created_at DESC, id DESC'),
      });
      expect(newest[0]).toBe(refundedLast);
      const byConcert = await firstListedIds('orderStatus=REFUNDED&sort=concertId,desc');
      expect({ folded, byConcert }).toEqual({
        folded,
        byConcert: await firstIdsWhere(`status = 'REFUNDED'`, 'concert_id DESC, id DESC'),
      });
      expect(byConcert[0]).toBe(Number(movedRefund));
      // The service's zone is nine hours ahead of UTC: from 2026-03-11 00:00 UTC on.
      const openRange = await firstListedIds('startDate=2026-03-11T09:00:00&sort=orderId,asc');
      expect(openRange).toEqual(await firstIdsWhere(`created_at >= '2026-03-11 00:00:00'`, 'id ASC'));
    }
  });

  it('reads the counts and the page of a bounded walk in one snapshot, and gives the connection back outside it (docs/adr/0020)', async () => {
    const plans = context.app.get(PagePlans);
    const pages = context.app.get(PageStatements);
    const { primary } = context.app.get(DatabaseServers);
    const runner = context.dataSource.createQueryRunner();
    const request = {
      filters: { status: 'REFUNDED' as const },
      sort: [
        { field: 'createdAt' as const, direction: 'DESC' as const },
        { field: 'orderId' as const, direction: 'DESC' as const },
      ],
      limit: 3,
      offset: 0,
    };
    const inTransaction = async () =>
      Number(((await runner.query('SELECT @@in_transaction AS held')) as Array<{ held: number }>)[0].held);
    try {
      const session = new ReadSession(runner, new RequestDeadline(Infinity, new MonotonicClock()), primary);
      const readOnce = async () => {
        const plan = await plans.plan(request, session);
        if (plan.kind !== 'ready' || !plan.sizes) throw new Error(`planned ${plan.kind} without counts`);
        const { sizes } = plan;
        const heldThen = await inTransaction();
        // Placed once the counts are read: a refund of a later day than any, committed by another connection.
        await context.dataSource.query(
          `INSERT INTO orders (user_id, concert_id, total_price, status, created_at, updated_at)
           VALUES (2, 2, 12.00, 'REFUNDED', '2027-05-01 10:00:00', '2027-05-01 10:00:00')`,
        );
        const [rows] = await session.read<[Array<{ id: number }>]>('page', [
          pages.statement(request, plan.read, plan.sizes?.bounds),
        ]);
        const [{ total }] = (await runner.query(
          `SELECT COUNT(*) AS total FROM orders WHERE status = 'REFUNDED'`,
        )) as Array<{
          total: number;
        }>;
        return { sizes, page: rows.map(({ id }) => Number(id)), held: heldThen, snapshotTotal: Number(total) };
      };
      const { sizes, page, held, snapshotTotal } = await readOnce().finally(() => session.end());
      expect(held).toBe(1);
      expect(sizes.bounds?.field).toBe('createdAt');
      // The page and the count are of the snapshot: the later refund is in neither, and nothing is left out instead.
      expect(sizes.matching).toBe(snapshotTotal);
      const [{ total: now }] = await context.dataSource.query<Array<{ total: number }>>(
        `SELECT COUNT(*) AS total FROM orders WHERE status = 'REFUNDED'`,
      );
      expect(Number(now)).toBe(snapshotTotal + 1);
      const expected = await context.dataSource.query<Array<{ id: number }>>(
        `SELECT id FROM orders WHERE status = 'REFUNDED' AND created_at < '2027-05-01' ORDER BY created_at DESC, id DESC LIMIT 3`,
      );
      expect(page).toEqual(expected.map(({ id }) => Number(id)));
      expect(await inTransaction()).toBe(0);
    } finally {
      await runner.release();
    }
  });

  it('refuses the fold of an earlier version, which would leave the bounds narrower than their orders (docs/adr/0020)', async () => {
    await context.app.get(OrderCountFolding).foldPending();
    const [{ day, status }] = await context.dataSource.query<Array<{ day: string; status: string }>>(
      `SELECT DATE_FORMAT(day, '%Y-%m-%d') AS day, status FROM order_daily_counts WHERE orders > 0 LIMIT 1`,
    );
    // The upsert 2.6 folds with: the count alone, for a row there is and for one there is not.
    const earlierFold = (foldedDay: string) =>
      context.dataSource.query(
        `INSERT INTO order_daily_counts (day, status, orders) VALUES (?, ?, 1)
         ON DUPLICATE KEY UPDATE orders = orders + VALUES(orders)`,
        [foldedDay, status],
      );
    await expect(earlierFold(day)).rejects.toThrow(/does not widen the order bounds/);
    await expect(earlierFold('2019-01-01')).rejects.toThrow(/does not widen the order bounds/);
    const [{ inserted }] = await context.dataSource.query<Array<{ inserted: number }>>(
      `SELECT COUNT(*) AS inserted FROM order_daily_counts WHERE day = '2019-01-01'`,
    );
    expect(Number(inserted)).toBe(0);
  });

  it('folds every change into the per-day totals, which then equal GROUP BY over orders', async () => {
    // This instance's own background fold may hold the turn at this moment; then it is the one that folds.
    await waitFor('every change folded', async () => {
      await context.app.get(OrderCountFolding).foldPending();
      const [{ pending }] = await context.dataSource.query<Array<{ pending: number }>>(`${PENDING_ROWS} AS pending`);
      return Number(pending) === 0;
    });
    const kept = await context.dataSource.query<Array<{ day: string; status: string; orders: number }>>(
      `SELECT DATE_FORMAT(day, '%Y-%m-%d') AS day, status, orders FROM order_daily_counts WHERE orders <> 0 ORDER BY day, status`,
    );
    const counted = await context.dataSource.query<Array<{ day: string; status: string; orders: number }>>(
      `SELECT DATE_FORMAT(DATE(created_at), '%Y-%m-%d') AS day, status, COUNT(*) AS orders FROM orders GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    expect(kept.map((row) => ({ ...row, orders: Number(row.orders) }))).toEqual(
      counted.map((row) => ({ ...row, orders: Number(row.orders) })),
    );
  });

  it('keeps totals exact while folding is stopped: the changes pile up and reads sum them', async () => {
    await context.app.get(OrderCountFolding).stop();
    const connection = await connectTo(target);
    try {
      await writeLikeASale(connection, 99, { operations: 200, createdAt: nearTheMidnights });
    } finally {
      await connection.end();
    }
    const [{ changes, moves }] = await context.dataSource.query<Array<{ changes: number; moves: number }>>(
      'SELECT (SELECT COUNT(*) FROM order_count_changes) AS changes, (SELECT COUNT(*) FROM order_count_moves) AS moves',
    );
    expect(Number(changes)).toBeGreaterThan(100);
    expect(Number(moves)).toBeGreaterThan(10);
    for (const { query, where } of TOTALS) {
      const [{ total }] = await context.dataSource.query<Array<{ total: number }>>(
        `SELECT COUNT(*) AS total FROM orders ${where}`,
      );
      const response = await api(context.server, adminToken()).get(`/orders?${query}`);
      expect({ query, total: (response.body as { totalElementCount: number }).totalElementCount }).toEqual({
        query,
        total: Number(total),
      });
    }
  });
});

/**
 * The migrations that moved counting off the hot row, the status index off
 * the payments and a payment's count to one row run on a live database:
 * writers keep placing and changing orders while they replace the triggers
 * and drop the indexes, and no total is ever wrong.
 */
describe('the counting migration on a database being written to, on MariaDB', () => {
  let target: MysqlTarget;
  let before: DataSource;

  const optionsWith = (migrations: typeof MIGRATIONS) => ({
    ...maintenanceOptions(target, { DB_POOL_SIZE: '4' }),
    migrations,
  });

  beforeAll(async () => {
    target = await freshMysqlDatabase('counting_migration', { migrate: false });
    // The schema as it was before the migration: per-day totals kept on hot rows.
    before = new DataSource(
      optionsWith(MIGRATIONS.slice(0, MIGRATIONS.indexOf(CountChangesOffTheWritePath1764028800000))),
    );
    await before.initialize();
    await before.runMigrations();
    await seedDataset(before, 17);
  }, 60_000);

  afterAll(async () => {
    await before?.destroy();
  });

  /**
   * Whether what the listing would sum for each status equals COUNT(*) at one snapshot: the per-day totals alone
   * while the old triggers keep them, plus the changes once their table exists, plus the moves once theirs does.
   * `undefined` when the snapshot predates a table (MariaDB then asks for a retry).
   */
  async function exactAtOneSnapshot(connection: Connection): Promise<boolean | undefined> {
    const sources = [
      'SELECT status, orders AS n FROM order_daily_counts',
      'SELECT status, delta FROM order_count_changes',
      'SELECT from_status, -1 FROM order_count_moves UNION ALL SELECT to_status, 1 FROM order_count_moves',
    ];
    const byStatus = (rows: RowDataPacket[]) =>
      rows
        .filter(({ n }) => Number(n) !== 0)
        .map(({ status, n }) => `${String(status)}=${Number(n)}`)
        .sort()
        .join(' ');
    await connection.query('START TRANSACTION WITH CONSISTENT SNAPSHOT');
    try {
      const [counted] = await connection.query<RowDataPacket[]>(
        'SELECT status, COUNT(*) AS n FROM orders GROUP BY status',
      );
      for (let present = sources.length; present > 0; present -= 1) {
        try {
          const [listed] = await connection.query<RowDataPacket[]>(
            `SELECT status, SUM(n) AS n FROM (${sources.slice(0, present).join(' UNION ALL ')}) listed GROUP BY status`,
          );
          return byStatus(listed) === byStatus(counted);
        } catch (error) {
          if ((error as { code?: string }).code !== 'ER_NO_SUCH_TABLE') throw error;
        }
      }
      throw new Error('no per-day totals');
    } catch (error) {
      if ((error as { code?: string }).code === 'ER_TABLE_DEF_CHANGED') return undefined;
      throw error;
    } finally {
      await connection.query('COMMIT');
    }
  }

  it('converts while 8 writers write, and each status’s totals, changes and moves equal COUNT(*) before, during and after', async () => {
    const connections = await Promise.all(Array.from({ length: 8 }, () => connectTo(target)));
    const sampler = await connectTo(target);
    const after = new DataSource(optionsWith(MIGRATIONS));
    await after.initialize();
    let migrated = false;
    const samples: Array<boolean | undefined> = [];
    try {
      const sampling = (async () => {
        do samples.push(await exactAtOneSnapshot(sampler));
        while (!migrated);
        samples.push(await exactAtOneSnapshot(sampler));
      })();
      // The old triggers update shared rows, so until the migration is through the writers may deadlock each
      // other, as they did before it; like any client, they retry.
      const writers = Promise.all(
        connections.map(async (connection, index) => {
          for (let round = 0; round < 40 || !migrated; round += 1) {
            await writeLikeASale(connection, 100 + index * 1000 + round, {
              operations: 5,
              createdAt: nearTheMidnights,
            }).catch(async (error: { code?: string }) => {
              await connection.rollback();
              if (error.code !== 'ER_LOCK_DEADLOCK' || migrated) throw error;
            });
          }
        }),
      );
      await after.runMigrations();
      migrated = true;
      await writers;
      await sampling;
    } finally {
      await Promise.all([...connections, sampler].map((connection) => connection.end()));
    }
    expect(samples.filter((sample) => sample !== undefined).length).toBeGreaterThan(1);
    expect(samples.filter((sample) => sample === false)).toEqual([]);
    const sampledAfter = await connectTo(target);
    const exactAfter = await exactAtOneSnapshot(sampledAfter).finally(() => sampledAfter.end());
    const outside = await outsideTheirBounds((sql) => after.query(sql), 'mysql');
    await after.destroy();
    expect(exactAfter).toBe(true);
    expect(outside).toEqual([]);
    expect(
      await before.query<Array<{ name: string }>>(
        `SELECT TRIGGER_NAME AS name FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE()
          AND ACTION_STATEMENT LIKE '%order_daily_counts%'`,
      ),
    ).toEqual([]);
    expect(
      await before.query<Array<{ name: string }>>(
        `SELECT DISTINCT INDEX_NAME AS name FROM information_schema.STATISTICS
          WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'orders' AND COLUMN_NAME = 'status'`,
      ),
    ).toEqual([]);
  }, 180_000);
});

/** Reverting to two changes per payment loses no move that was not folded yet. */
describe('reverting OneCountRowPerStatusChange, on MariaDB', () => {
  it('turns each move not folded into its two changes, and the update trigger back into two changes', async () => {
    const target = await freshMysqlDatabase('count_moves_down');
    const dataSource = new DataSource(maintenanceOptions(target, { DB_POOL_SIZE: '2' }));
    await dataSource.initialize();
    const connection = await connectTo(target);
    try {
      await seedDataset(dataSource, 23);
      await writeLikeASale(connection, 7, { operations: 60, createdAt: nearTheMidnights });
      const [{ moves }] = await dataSource.query<Array<{ moves: number }>>(
        'SELECT COUNT(*) AS moves FROM order_count_moves',
      );
      expect(Number(moves)).toBeGreaterThan(0);

      // AccessRecords and IdsAndConcertsPerDay first, then OneCountRowPerStatusChange.
      await dataSource.undoLastMigration();
      await dataSource.undoLastMigration();
      await dataSource.undoLastMigration();
      await writeLikeASale(connection, 8, { operations: 60, createdAt: nearTheMidnights });
      const listed = await dataSource.query<Array<{ status: string; n: number }>>(
        `SELECT status, SUM(n) AS n FROM (
           SELECT status, orders AS n FROM order_daily_counts UNION ALL SELECT status, delta FROM order_count_changes
         ) listed GROUP BY status HAVING SUM(n) <> 0 ORDER BY status`,
      );
      const counted = await dataSource.query<Array<{ status: string; n: number }>>(
        'SELECT status, COUNT(*) AS n FROM orders GROUP BY status ORDER BY status',
      );
      expect(listed.map(({ status, n }) => [status, Number(n)])).toEqual(
        counted.map(({ status, n }) => [status, Number(n)]),
      );
      const [{ tables }] = await dataSource.query<Array<{ tables: number }>>(
        `SELECT COUNT(*) AS tables FROM information_schema.TABLES
          WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'order_count_moves'`,
      );
      expect(Number(tables)).toBe(0);
    } finally {
      await connection.end();
      await dataSource.destroy();
    }
  }, 60_000);
});

/** The embedded database mirrors the design: the same triggers append changes, and the same fold moves them. */
describe('counting on the embedded database', () => {
  let context: TestApp;

  beforeAll(async () => {
    context = await startTestApp({ RATE_LIMIT_PER_MINUTE: '0' });
    await seedDataset(context.dataSource, 17);
  });

  afterAll(async () => {
    await context?.close();
  });

  it('appends changes on writes, counts them before they are folded, and folds them all', async () => {
    // Folding in the background could run between the writes and the first look; here it runs when told.
    await context.app.get(OrderCountFolding).stop();
    await context.dataSource.query(
      `UPDATE orders SET status = 'REFUNDED' WHERE id IN (SELECT id FROM orders WHERE status = 'CANCELLED' LIMIT 3)`,
    );
    await context.dataSource.query('DELETE FROM orders WHERE id = (SELECT MIN(id) FROM orders)');
    const totalOf = async (query: string) =>
      (
        (await api(context.server, adminToken()).get(`/orders?${query}`)).body as {
          totalElementCount: number;
        }
      ).totalElementCount;
    const counted = async (where: string) =>
      Number(
        (await context.dataSource.query<Array<{ total: number }>>(`SELECT COUNT(*) AS total FROM orders ${where}`))[0]
          .total,
      );
    // The three refunds are moves within their days; the delete is a change (after the seeding's, if not folded yet).
    const [{ changes, moves }] = await context.dataSource.query<Array<{ changes: number; moves: number }>>(
      'SELECT (SELECT COUNT(*) FROM order_count_changes) AS changes, (SELECT COUNT(*) FROM order_count_moves) AS moves',
    );
    expect(Number(changes)).toBeGreaterThan(0);
    expect(Number(moves)).toBe(3);
    expect(await totalOf('orderStatus=REFUNDED')).toBe(await counted("WHERE status = 'REFUNDED'"));
    expect(await totalOf('orderStatus=CANCELLED')).toBe(await counted("WHERE status = 'CANCELLED'"));

    await context.app.get(OrderCountFolding).foldPending();
    const [{ left }] = await context.dataSource.query<Array<{ left: number }>>(`${PENDING_ROWS} AS left`);
    expect(Number(left)).toBe(0);
    expect(await totalOf('')).toBe(await counted(''));
    expect(await totalOf('orderStatus=REFUNDED')).toBe(await counted("WHERE status = 'REFUNDED'"));
    expect(await outsideTheirBounds((sql) => context.dataSource.query(sql), 'sqlite')).toEqual([]);

    // Re-dated, and moved to another concert: both widen the bounds of where the order now is, folded or not.
    await context.dataSource.query(
      `UPDATE orders SET created_at = '2020-01-01 10:00:00' WHERE id = (SELECT MAX(id) FROM orders)`,
    );
    await context.dataSource.query('UPDATE orders SET concert_id = 9000000 WHERE id = (SELECT MIN(id) FROM orders)');
    expect(await outsideTheirBounds((sql) => context.dataSource.query(sql), 'sqlite')).toEqual([]);
    await context.app.get(OrderCountFolding).foldPending();
    expect(await outsideTheirBounds((sql) => context.dataSource.query(sql), 'sqlite')).toEqual([]);
  });
});
