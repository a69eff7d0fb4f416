import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { MEMBER_WITHOUT_ORDERS, MEMBERS, seedDataset, type TestOrder } from '../support/data/dataset';
import { expectedPage, matching, USER_SORT_FIELDS } from '../support/data/oracle';
import { adminQuery, inverted, sortTerms, written } from '../support/data/arbitraries';
import { freshMysqlDatabase, mysqlEnvironment } from '../support/app/test-database';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { adminToken, userToken } from '../support/app/tokens';
import { api } from '../support/app/api-client';

/** `TEST_QUICK=1` runs a twentieth of the cases, for a developer's inner loop; CI runs them all. */
const RUN_SHARE = process.env.TEST_QUICK === '1' ? 0.05 : 1;
const USER_RUNS = Math.ceil(10_000 * RUN_SHARE);
const ADMIN_RUNS = Math.ceil(1_500 * RUN_SHARE);
const WALK_RUNS = Math.ceil(150 * RUN_SHARE);

/** Properties of docs/API.md §1–§4 over random requests, on MariaDB (fast-check). */
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

  const get = (token: string, query: string) => api(context.server, token).get(`/orders?${query}`);

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
