import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { foldAllChanges } from '../../src/orders/counting/daily-counts';
import { DEEP_OFFSET } from '../../src/orders/paging/page-reach';
import { PagePlans, type PageReach } from '../../src/orders/page-plans';
import { buildDataset, plantOrders, STATUSES, type TestOrder } from '../support/data/dataset';
import {
  ADMIN_SORT_FIELDS,
  matching,
  sorted,
  type Direction,
  type Field,
  type OracleQuery,
} from '../support/data/oracle';
import { freshMysqlDatabase, mysqlEnvironment } from '../support/app/test-database';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { adminToken } from '../support/app/tokens';
import { api } from '../support/app/api-client';

/** `TEST_QUICK=1` runs a tenth of the cases, for a developer's inner loop; CI runs them all. */
const RUNS = process.env.TEST_QUICK === '1' ? 10 : 100;
/** A time zone with daylight saving: its date ranges' days are 23 and 25 hours long around the changes. */
const ZONE = 'America/New_York';
/** Date ranges around 2026's changes (8 March, 1 November) and across most of the year. */
const RANGES: Array<[string, string | undefined] | undefined> = [
  undefined,
  ['2026-03-01', '2026-03-20'],
  ['2026-03-08', '2026-03-08'],
  ['2026-10-25', '2026-11-02'],
  ['2026-02-10', '2026-12-20'],
  ['2026-05-01', undefined],
];

interface Page {
  totalElementCount: number;
  totalPages: number;
  currentElementCount: number;
  elements: Array<{ orderId: number }>;
}

/** The order ids OFFSET gives, with docs/API.md §3's tie-break, from the orders as planted. */
function offsetAnswer(orders: TestOrder[], query: OracleQuery, offset: number, size: number) {
  const all = matching(orders, query);
  return {
    total: all.length,
    ids: sorted(all, query.sort)
      .slice(offset, offset + size)
      .map((order) => order.id),
  };
}

const startOf = (date: string) => DateTime.fromISO(date, { zone: ZONE }).toMillis();

/**
 * docs/API.md §22 on both databases: a page asked by number holds exactly the orders OFFSET gives, whether the
 * service jumps to its day (creation time), reads it from the nearer end (any other sort) or reads it by OFFSET,
 * with counts partly folded, statuses moved since, day boundaries and daylight saving changes in the ranges.
 */
describe.each(['sqlite', 'mysql'] as const)('pages by number on %s (docs/API.md §22)', (database) => {
  let context: TestApp;
  let orders: TestOrder[];

  beforeAll(async () => {
    const environment = database === 'mysql' ? mysqlEnvironment(await freshMysqlDatabase('pages_by_number')) : {};
    context = await startTestApp({ ...environment, RATE_LIMIT_PER_MINUTE: '0', APP_TIMEZONE: ZONE });
    const planted = buildDataset(220622, 6000);
    // Half folded into the per-day totals, half still counting rows, then statuses moved: each kind of count.
    await plantOrders(context.dataSource, planted.slice(0, 3000));
    await foldAllChanges(context.dataSource);
    await plantOrders(context.dataSource, planted.slice(3000));
    const moved = planted.filter((order) => order.id % 7 === 0 && order.status !== 'ON_HOLD');
    for (const order of moved) order.status = order.status === 'REFUNDED' ? 'CANCELLED' : 'REFUNDED';
    for (const status of ['REFUNDED', 'CANCELLED']) {
      const ids = moved.filter((order) => order.status === status).map((order) => order.id);
      await context.dataSource.query(`UPDATE orders SET status = ? WHERE id IN (${ids.map(() => '?').join(', ')})`, [
        status,
        ...ids,
      ]);
    }
    orders = planted;
  }, 180_000);

  afterAll(async () => {
    await context?.close();
  });

  const pageOf = async (query: OracleQuery, range: [string, string | undefined] | undefined) => {
    const [[field, direction]] = query.sort!;
    const parameters = new URLSearchParams({
      page: String(query.page),
      size: String(query.size),
      sort: `${field},${direction}`,
    });
    if (query.status) parameters.set('orderStatus', query.status);
    if (range?.[0]) parameters.set('startDate', range[0]);
    if (range?.[1]) parameters.set('endDate', range[1]);
    return api(context.server, adminToken()).get(`/orders?${parameters.toString()}`);
  };

  /** How the deep pages were read: by day, from the nearer end (reversed or not), or by OFFSET (none). */
  const readsOfDeepPages = () => {
    const reach = jest.spyOn(context.app.get(PagePlans), 'reach');
    return {
      kinds: async () => {
        const found = await Promise.all(reach.mock.results.map(({ value }) => value as Promise<PageReach | undefined>));
        reach.mockRestore();
        return {
          byDay: found.filter((read) => read?.byDay).length,
          reversed: found.filter((read) => read?.reversed).length,
        };
      },
    };
  };

  it(`over ${RUNS} random pages, deep ones among them, each holds what OFFSET gives, and the totals are the count`, async () => {
    let deep = 0;
    const reads = readsOfDeepPages();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Field>(...ADMIN_SORT_FIELDS, 'createdAt', 'createdAt', 'createdAt'),
        fc.constantFrom<Direction>('asc', 'desc'),
        fc.option(fc.constantFrom(...STATUSES), { nil: undefined }),
        fc.constantFrom(...RANGES),
        fc.integer({ min: 1, max: 100 }),
        // Where in the listing: the first page, the last, one past it, or anywhere between.
        fc.oneof(fc.constant(0), fc.constant(1), fc.constant(1.01), fc.double({ min: 0, max: 1, noNaN: true })),
        async (field, direction, status, range, size, at) => {
          const base: OracleQuery = {
            role: 'ADMIN',
            callerId: 9000,
            status,
            sort: [[field, direction]],
            fromMs: range?.[0] ? startOf(range[0]) : undefined,
            toMs: range?.[1] ? DateTime.fromISO(range[1], { zone: ZONE }).plus({ days: 1 }).toMillis() - 1 : undefined,
          };
          const total = matching(orders, base).length;
          const lastPage = Math.max(1, Math.ceil(total / size));
          const page = at > 1 ? lastPage + 1 : Math.max(1, Math.min(lastPage, Math.round(at * lastPage)));
          const offset = (page - 1) * size;
          if (offset >= DEEP_OFFSET) deep += 1;
          const response = await pageOf({ ...base, page, size }, range);
          expect(response.status).toBe(200);
          const body = response.body as Page;
          const expected = offsetAnswer(orders, base, offset, size);
          expect(body.elements.map((element) => element.orderId)).toEqual(expected.ids);
          expect(body.totalElementCount).toBe(expected.total);
          expect(body.totalPages).toBe(Math.ceil(expected.total / size));
        },
      ),
      { numRuns: RUNS },
    );
    // The property reached the deep pages it is about, not only the first ones, and read them as §22 says: by day and
    // from the end on MySQL; by OFFSET on the embedded database, whose tables are small.
    expect(deep).toBeGreaterThanOrEqual(RUNS / 10);
    const { byDay, reversed } = await reads.kinds();
    if (database === 'mysql') {
      expect(byDay).toBeGreaterThan(0);
      expect(reversed).toBeGreaterThan(0);
    } else {
      expect(byDay + reversed).toBe(0);
    }
  }, 600_000);

  it('answers the first, a straddling, the last and a past-the-end page of every default-sort day', async () => {
    const base: OracleQuery = { role: 'ADMIN', callerId: 9000, sort: [['createdAt', 'desc']] };
    const size = 37;
    const total = matching(orders, base).length;
    const lastPage = Math.ceil(total / size);
    for (const page of [
      1,
      Math.ceil(DEEP_OFFSET / size) + 1,
      Math.floor(lastPage / 2),
      lastPage - 1,
      lastPage,
      lastPage + 1,
    ]) {
      for (const direction of ['asc', 'desc'] as const) {
        const query = { ...base, sort: [['createdAt', direction]] as Array<[Field, Direction]>, page, size };
        const response = await pageOf(query, undefined);
        const expected = offsetAnswer(orders, query, (page - 1) * size, size);
        expect(response.status).toBe(200);
        expect((response.body as Page).elements.map((element) => element.orderId)).toEqual(expected.ids);
        expect((response.body as Page).totalElementCount).toBe(expected.total);
      }
    }
  });

  it('while other orders are placed, paid and moved between days and the counts fold, answers what OFFSET gives', async () => {
    // The writes touch no refund and no cancellation: those listings stay as planted, while the days they share with
    // the written orders have their counting rows appended and folded, and their totals rewritten, under the reads.
    const untouched = ['REFUNDED', 'CANCELLED'];
    const expectedOf = (query: OracleQuery) =>
      offsetAnswer(orders, query, (query.page! - 1) * query.size!, query.size!);
    let writing = true;
    const writer = (async () => {
      const yearStart = Date.UTC(2026, 0, 1);
      for (let write = 0; writing && write < 400; write += 1) {
        const day = yearStart + ((write * 7919) % 360) * 86_400_000 + ((write * 104_729) % 86_400_000);
        const at = new Date(day).toISOString().slice(0, 23).replace('T', ' ');
        const [{ id }] = await context.dataSource.query<Array<{ id: number }>>(
          `INSERT INTO orders (user_id, concert_id, total_price, status, created_at, updated_at)
             VALUES (1, 1, 1, 'PAYMENT_PENDING', ?, ?) RETURNING id`,
          [at, at],
        );
        await context.dataSource.query("UPDATE orders SET status = 'PAYMENT_COMPLETED' WHERE id = ?", [id]);
        // Moved to the next day, as a correction of its time would.
        const next = new Date(day + 86_400_000).toISOString().slice(0, 23).replace('T', ' ');
        await context.dataSource.query('UPDATE orders SET created_at = ? WHERE id = ?', [next, id]);
      }
    })();
    let read = 0;
    try {
      for (let round = 0; round < 40; round += 1) {
        const status = untouched[round % 2];
        const direction: Direction = round % 4 < 2 ? 'desc' : 'asc';
        const base: OracleQuery = { role: 'ADMIN', callerId: 9000, status, sort: [['createdAt', direction]] };
        const total = matching(orders, base).length;
        const size = 10 + (round % 7);
        const page = Math.ceil(DEEP_OFFSET / size) + 1 + ((round * 37) % Math.max(1, Math.ceil(total / size) - 100));
        const response = await pageOf({ ...base, page, size }, undefined);
        expect(response.status).toBe(200);
        const expected = expectedOf({ ...base, page, size });
        expect((response.body as Page).elements.map((element) => element.orderId)).toEqual(expected.ids);
        expect((response.body as Page).totalElementCount).toBe(expected.total);
        read += 1;
      }
    } finally {
      writing = false;
      await writer;
    }
    expect(read).toBe(40);
  }, 120_000);
});
