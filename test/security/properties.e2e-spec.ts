import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import request from 'supertest';
import { MEMBER_WITHOUT_ORDERS, MEMBERS, seedDataset, seoul, STATUSES, type TestOrder } from '../support/data/dataset';
import {
  ADMIN_SORT_FIELDS,
  expectedPage,
  matching,
  USER_SORT_FIELDS,
  type Direction,
  type Field,
  type OracleQuery,
} from '../support/data/oracle';
import { freshMysqlDatabase, mysqlEnvironment } from '../support/app/test-database';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { adminToken, userToken } from '../support/app/tokens';

/** `TEST_QUICK=1` runs a twentieth of the cases, for a developer's inner loop; CI runs them all. */
const RUN_SHARE = process.env.TEST_QUICK === '1' ? 0.05 : 1;
const USER_RUNS = Math.ceil(10_000 * RUN_SHARE);
const ADMIN_RUNS = Math.ceil(1_500 * RUN_SHARE);
const WALK_RUNS = Math.ceil(150 * RUN_SHARE);

type SortTerm = { field: Field; direction: Direction; written: string };

const sortTerms = (fields: readonly Field[]) =>
  fc
    .uniqueArray(
      fc.record({
        field: fc.constantFrom(...fields),
        direction: fc.constantFrom<Direction>('asc', 'desc'),
        // How the client writes it: direction omitted (asc), lower or upper case.
        style: fc.constantFrom('implicit', 'lower', 'upper'),
      }),
      { selector: (term) => term.field, maxLength: 3 },
    )
    .map((terms) =>
      terms.map(({ field, direction, style }): SortTerm => {
        const effective: Direction = style === 'implicit' ? 'asc' : direction;
        const written =
          style === 'implicit' ? field : `${field},${style === 'upper' ? effective.toUpperCase() : effective}`;
        return { field, direction: effective, written };
      }),
    );

interface DateBound {
  text: string;
  /** The first and last millisecond the bound covers, worked out here without the service's parser. */
  firstMs: number;
  lastMs: number;
}

const dateBound = fc
  .record({
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 28 }),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
    second: fc.integer({ min: 0, max: 59 }),
    form: fc.constantFrom('date', 'local', 'utc', 'offset'),
    offsetMinutes: fc.integer({ min: -12 * 60, max: 14 * 60 }),
  })
  .map(({ month, day, hour, minute, second, form, offsetMinutes }): DateBound => {
    const two = (value: number) => String(value).padStart(2, '0');
    const date = `2026-${two(month)}-${two(day)}`;
    const time = `${two(hour)}:${two(minute)}:${two(second)}`;
    if (form === 'date')
      return { text: date, firstMs: seoul(2026, month, day), lastMs: seoul(2026, month, day + 1) - 1 };
    if (form === 'local') {
      const at = seoul(2026, month, day, hour, minute, second);
      return { text: `${date}T${time}`, firstMs: at, lastMs: at + 999 };
    }
    const offset = form === 'utc' ? 0 : offsetMinutes;
    const designator =
      form === 'utc'
        ? 'Z'
        : `${offset < 0 ? '-' : '+'}${two(Math.floor(Math.abs(offset) / 60))}:${two(Math.abs(offset) % 60)}`;
    const at = Date.UTC(2026, month - 1, day, hour, minute, second) - offset * 60_000;
    return { text: `${date}T${time}${designator}`, firstMs: at, lastMs: at + 999 };
  });

/** Properties of CONTRACT §1–§4 over random requests, on MariaDB (fast-check). */
describe('properties on MariaDB', () => {
  let context: TestApp;
  let orders: TestOrder[];
  let ownerOf: Map<number, number>;

  beforeAll(async () => {
    context = await startTestApp({
      ...mysqlEnvironment(await freshMysqlDatabase('properties')),
      RATE_LIMIT_PER_MINUTE: '0',
    });
    orders = await seedDataset(context.dataSource, 424242);
    ownerOf = new Map(orders.map((order) => [order.id, order.userId]));
  }, 60_000);

  afterAll(async () => {
    await context?.close();
  });

  const get = (token: string, query: string) =>
    request(context.server).get(`/orders?${query}`).set('Authorization', `Bearer ${token}`);

  it(`(a) over ${USER_RUNS} random requests, a member sees only their own orders and their own count`, async () => {
    const members = [...MEMBERS, MEMBER_WITHOUT_ORDERS];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...members),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 100 }),
        sortTerms(USER_SORT_FIELDS),
        fc.option(
          fc.constantFrom(
            'userId=1',
            'userId=2',
            'consertId=3',
            'concertId=3',
            'orderStatus=REFUNDED',
            'startDate=2026-01-01',
          ),
          { freq: 10 },
        ),
        async (member, page, size, sort, adminFilter) => {
          const query = [
            `page=${page}`,
            `size=${size}`,
            ...sort.map((term) => `sort=${encodeURIComponent(term.written)}`),
          ];
          if (adminFilter) query.push(adminFilter);
          const response = await get(userToken(member), query.join('&'));
          if (adminFilter) {
            expect(response.status).toBe(403);
            expect(response.text).not.toContain('orderId');
            return;
          }
          expect(response.status).toBe(200);
          const body = response.body as {
            totalElementCount: number;
            elements: Array<{ orderId: number; userId?: number }>;
          };
          expect(body.totalElementCount).toBe(matching(orders, { role: 'USER', callerId: member }).length);
          for (const element of body.elements) {
            expect(ownerOf.get(element.orderId)).toBe(member);
            expect(element.userId).toBeUndefined();
          }
        },
      ),
      { numRuns: USER_RUNS, seed: 20261121 },
    );
  }, 300_000);

  interface AdminQuery {
    page: number;
    size: number;
    sort: SortTerm[];
    userId: number | null;
    concertId: number | null;
    concertSpelling: 'consertId' | 'concertId';
    status: string | null;
    statusAsLabel: boolean;
    start: DateBound | null;
    end: DateBound | null;
  }

  const adminQuery: fc.Arbitrary<AdminQuery> = fc.record({
    page: fc.integer({ min: 1, max: 12 }),
    size: fc.integer({ min: 1, max: 100 }),
    sort: sortTerms(ADMIN_SORT_FIELDS),
    userId: fc.option(fc.constantFrom(...MEMBERS, MEMBER_WITHOUT_ORDERS), { freq: 3 }),
    concertId: fc.option(fc.integer({ min: 1, max: 13 }), { freq: 3 }),
    concertSpelling: fc.constantFrom<'consertId' | 'concertId'>('consertId', 'concertId'),
    status: fc.option(fc.constantFrom(...STATUSES), { freq: 3 }),
    statusAsLabel: fc.boolean(),
    start: fc.option(dateBound, { freq: 3 }),
    end: fc.option(dateBound, { freq: 3 }),
  });

  const LABELS: Record<string, string> = {
    PAYMENT_PENDING: '결제 대기',
    PAYMENT_COMPLETED: '결제 완료',
    CANCELLED: '주문 취소',
    REFUNDED: '환불 완료',
  };

  function written(query: AdminQuery, page = query.page): { text: string; oracle: OracleQuery } {
    const parts = [
      `page=${page}`,
      `size=${query.size}`,
      ...query.sort.map((term) => `sort=${encodeURIComponent(term.written)}`),
    ];
    if (query.userId !== null) parts.push(`userId=${query.userId}`);
    if (query.concertId !== null) parts.push(`${query.concertSpelling}=${query.concertId}`);
    if (query.status !== null)
      parts.push(`orderStatus=${encodeURIComponent(query.statusAsLabel ? LABELS[query.status] : query.status)}`);
    if (query.start !== null) parts.push(`startDate=${encodeURIComponent(query.start.text)}`);
    if (query.end !== null) parts.push(`endDate=${encodeURIComponent(query.end.text)}`);
    return {
      text: parts.join('&'),
      oracle: {
        role: 'ADMIN',
        callerId: 9000,
        page,
        size: query.size,
        sort:
          query.sort.length > 0
            ? query.sort.map((term): [Field, Direction] => [term.field, term.direction])
            : undefined,
        userId: query.userId ?? undefined,
        concertId: query.concertId ?? undefined,
        status: query.status ?? undefined,
        fromMs: query.start?.firstMs,
        toMs: query.end?.lastMs,
      },
    };
  }

  const inverted = (query: AdminQuery) =>
    query.start !== null && query.end !== null && query.start.firstMs > query.end.lastMs;

  it(`(b) over ${ADMIN_RUNS} random admin requests, the page equals an independent computation`, async () => {
    await fc.assert(
      fc.asyncProperty(adminQuery, async (query) => {
        const { text, oracle } = written(query);
        const response = await get(adminToken(), text);
        if (inverted(query)) {
          expect(response.status).toBe(400);
          return;
        }
        expect(response.status).toBe(200);
        expect(response.text).toBe(JSON.stringify(expectedPage(orders, oracle)));
      }),
      { numRuns: ADMIN_RUNS, seed: 11 },
    );
  }, 300_000);

  it(`(c) over ${WALK_RUNS} random queries, walking every page visits each matching order exactly once`, async () => {
    await fc.assert(
      fc.asyncProperty(
        adminQuery.filter((query) => !inverted(query)),
        async (query) => {
          const seen: number[] = [];
          for (let page = 1; ; page += 1) {
            const response = await get(adminToken(), written(query, page).text);
            expect(response.status).toBe(200);
            const body = response.body as { hasNextPage: boolean; elements: Array<{ orderId: number }> };
            seen.push(...body.elements.map((element) => element.orderId));
            if (!body.hasNextPage) break;
          }
          const expected = matching(orders, written(query, 1).oracle).map((order) => order.id);
          expect(new Set(seen).size).toBe(seen.length);
          expect([...seen].sort((a, b) => a - b)).toEqual(expected.sort((a, b) => a - b));
        },
      ),
      { numRuns: WALK_RUNS, seed: 5 },
    );
  }, 300_000);
});
