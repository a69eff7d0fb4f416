import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { linksOf } from '../support/assertions/link-header';
import { adminQuery, inverted, sortTerms, written } from '../support/data/arbitraries';
import { MEMBERS, plantOrders, seedDataset, type TestOrder } from '../support/data/dataset';
import { USER_SORT_FIELDS } from '../support/data/oracle';
import { freshMysqlDatabase, mysqlEnvironment } from '../support/app/test-database';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { adminToken, userToken } from '../support/app/tokens';
import { api } from '../support/app/api-client';
import { expectProblem } from '../support/assertions/problem';
import { Role } from '../../src/auth/role';
import { ContinuationTokens } from '../../src/orders/paging/continuation';
import { walkScopeOf } from '../../src/orders/query/walk-parameters';

/** `TEST_QUICK=1` runs a tenth of the walks, for a developer's inner loop; CI runs them all. */
const RUN_SHARE = process.env.TEST_QUICK === '1' ? 0.1 : 1;
const ADMIN_WALKS = Math.ceil(60 * RUN_SHARE);
const MEMBER_WALKS = Math.ceil(30 * RUN_SHARE);

interface Page {
  currentPage: number;
  elements: Array<{ orderId: number }>;
}

/**
 * docs/API.md §13, following `Link`: on a table that does not change, every page
 * reached by `next` or `prev` is byte for byte the page the same parameters
 * answer by offset (property-tested over random filters, sorts and sizes), and
 * on one that does, a walk is neither pushed by new orders nor fed them.
 */
describe.each(['sqlite', 'mysql'] as const)('following Link on %s (docs/API.md §13)', (database) => {
  let context: TestApp;
  let orders: TestOrder[];

  beforeAll(async () => {
    const environment = database === 'mysql' ? mysqlEnvironment(await freshMysqlDatabase('walks')) : {};
    context = await startTestApp({ ...environment, RATE_LIMIT_PER_MINUTE: '0' });
    orders = await seedDataset(context.dataSource, 130613);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
  });

  const get = (token: string, target: string) => api(context.server, token).get(target);

  /**
   * Follows `next` from the first page to the last, then `prev` back to the
   * first, checking each followed page against the offset page of the same
   * parameters. Returns the order ids in the order the forward walk saw them.
   */
  async function walkBothWays(token: string, firstTarget: string, offsetTarget: (page: number) => string) {
    const seen: number[] = [];
    let response = await get(token, firstTarget);
    expect(response.status).toBe(200);
    seen.push(...(response.body as Page).elements.map(({ orderId }) => orderId));
    for (let next = linksOf(response.headers.link).next; next; next = linksOf(response.headers.link).next) {
      expect(next).toMatch(/[?&]after=[\w-]+$/);
      response = await get(token, next);
      const { currentPage, elements } = response.body as Page;
      expect(response.text).toBe((await get(token, offsetTarget(currentPage))).text);
      seen.push(...elements.map(({ orderId }) => orderId));
    }
    for (let prev = linksOf(response.headers.link).prev; prev; prev = linksOf(response.headers.link).prev) {
      expect(prev).toMatch(/[?&]before=[\w-]+$/);
      response = await get(token, prev);
      expect(response.text).toBe((await get(token, offsetTarget((response.body as Page).currentPage))).text);
    }
    expect((response.body as Page).currentPage).toBe(1);
    return seen;
  }

  it(`over ${ADMIN_WALKS} random admin queries, next and prev links answer exactly the offset pages`, async () => {
    await fc.assert(
      fc.asyncProperty(
        adminQuery.filter((query) => !inverted(query)),
        fc.integer({ min: 3, max: 60 }),
        async (query, size) => {
          const sized = { ...query, size };
          const seen = await walkBothWays(
            adminToken(),
            `/orders?${written(sized, 1).text}`,
            (page) => `/orders?${written(sized, page).text}`,
          );
          expect(new Set(seen).size).toBe(seen.length);
        },
      ),
      { numRuns: ADMIN_WALKS, seed: 13 },
    );
  }, 300_000);

  it(`over ${MEMBER_WALKS} random member queries, the same holds for a member's own orders`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...MEMBERS),
        fc.integer({ min: 2, max: 30 }),
        sortTerms(USER_SORT_FIELDS),
        async (member, size, sort) => {
          const target = (page: number) =>
            `/orders?page=${page}&size=${size}${sort.map((term) => `&sort=${encodeURIComponent(term.written)}`).join('')}`;
          const seen = await walkBothWays(userToken(member), target(1), target);
          expect(seen.length).toBe(orders.filter((order) => order.userId === member).length);
        },
      ),
      { numRuns: MEMBER_WALKS, seed: 17 },
    );
  }, 300_000);

  it.each(['totalPrice', 'status', 'concertId', 'userId', 'createdAt', 'updatedAt'])(
    'lists %s and its reverse in exactly opposite order, across pages followed by links (docs/API.md §3)',
    async (field) => {
      const walk = (direction: string) =>
        walkBothWays(
          adminToken(),
          `/orders?size=37&sort=${field},${direction}`,
          (page) => `/orders?page=${page}&size=37&sort=${field},${direction}`,
        );
      const ascending = await walk('asc');
      expect(ascending).toHaveLength(orders.length);
      expect(ascending).toEqual((await walk('desc')).reverse());
    },
    60_000,
  );

  it('answers a link 2.x wrote for an ascending sort with a typed 400 to start again, and follows one of a descending sort', async () => {
    const tokens = context.app.get(ContinuationTokens);
    const bound = Math.max(...orders.map((order) => order.id));
    /** A link to page 2 as 2.x wrote it: bound to the sort as it was then, `orderId desc` appended whatever the direction. */
    const writtenBy2x = async (direction: 'ASC' | 'DESC') => {
      const sort = `totalPrice,${direction.toLowerCase()}`;
      const first = await get(adminToken(), `/orders?size=4&sort=${sort}`);
      const last = (first.body as Page).elements.at(-1) as unknown as { orderId: number; totalPrice: number };
      const scope = walkScopeOf(
        Role.Admin,
        {},
        [
          { field: 'totalPrice', direction },
          { field: 'orderId', direction: 'DESC' },
        ],
        4,
      );
      const token = tokens.write({ direction: 'after', key: [last.totalPrice, last.orderId], bound }, 2, scope);
      return get(adminToken(), `/orders?page=2&size=4&sort=${sort}&after=${token}`);
    };
    const outdated = await writtenBy2x('ASC');
    expect(expectProblem(outdated, 400)).toMatchObject({ type: '/problems/continuation-outdated' });
    // Descending sorts kept their order: their links go on working.
    const followed = await writtenBy2x('DESC');
    expect(followed.status).toBe(200);
    expect(followed.text).toBe((await get(adminToken(), '/orders?page=2&size=4&sort=totalPrice,desc')).text);
  });

  it('keeps every parameter and the page in next and prev, and leaves first and last plain', async () => {
    const response = await get(adminToken(), '/orders?page=3&size=4&sort=totalPrice,desc&orderStatus=CANCELLED');
    const links = linksOf(response.headers.link);
    const rest = 'size=4&sort=totalPrice,desc&orderStatus=CANCELLED';
    expect(links.first).toBe(`/orders?page=1&${rest}`);
    expect(links.last).toMatch(new RegExp(`^/orders\\?page=\\d+&${rest}$`));
    expect(links.prev).toMatch(new RegExp(`^/orders\\?page=2&${rest}&before=[\\w-]+$`));
    expect(links.next).toMatch(new RegExp(`^/orders\\?page=4&${rest}&after=[\\w-]+$`));
    // Followed, the next page links on with a continuation of its own, not the one it was reached with.
    const next = linksOf((await get(adminToken(), String(links.next))).headers.link).next;
    expect(next).toMatch(/page=5&/);
    expect(next?.split('after=')[1]).not.toBe(links.next?.split('after=')[1]);
  });

  it('answers 400 naming the continuation when any other parameter of the link was changed', async () => {
    const { next } = linksOf((await get(adminToken(), '/orders?size=4&orderStatus=CANCELLED')).headers.link);
    for (const [from, to] of [
      ['page=2', 'page=3'],
      ['size=4', 'size=5'],
      ['orderStatus=CANCELLED', 'orderStatus=REFUNDED'],
      ['sort=createdAt,desc', 'sort=createdAt,asc'],
    ]) {
      const changed = await get(adminToken(), String(next).replace(from, to));
      expect(changed.status).toBe(400);
      expect(changed.headers['content-type']).toContain('application/problem+json');
      expect((changed.body as { errors: Array<{ field: string }> }).errors).toEqual([
        expect.objectContaining({ field: 'after' }),
      ]);
    }
    // A member cannot follow an administrator's link, nor another member's.
    const memberNext = linksOf((await get(userToken(MEMBERS[0]), '/orders?size=2')).headers.link).next;
    expect((await get(userToken(MEMBERS[1]), String(memberNext))).status).toBe(400);
  });

  it('is neither pushed nor fed by orders placed after the walk began', async () => {
    const newestFirst = '/orders?size=5&sort=createdAt,desc';
    const oldestFirst = '/orders?size=5&sort=createdAt,asc';
    const [pageOne, oldestPageOne] = [await get(adminToken(), newestFirst), await get(adminToken(), oldestFirst)];
    const offsetPageTwo = await get(adminToken(), `${newestFirst}&page=2`);
    const maxId = Math.max(...orders.map((order) => order.id));
    // Placed now: later than every order of the data set, which runs to the end of its year.
    const now = Math.max(...orders.map((order) => order.createdAtMs)) + 60_000;
    const placed: TestOrder[] = [1, 2, 3].map((index) => ({
      id: maxId + index,
      userId: MEMBERS[0],
      concertId: 1,
      totalPrice: 1000,
      status: 'PAYMENT_PENDING',
      createdAtMs: now + index,
      updatedAtMs: now + index,
      seats: [],
    }));
    await plantOrders(context.dataSource, placed);
    try {
      // New orders sort first; by offset they push three elements of page 1 onto page 2.
      const followed = await get(adminToken(), String(linksOf(pageOne.headers.link).next));
      const ids = (page: { body: unknown }) => (page.body as Page).elements.map(({ orderId }) => orderId);
      expect(ids(followed)).toEqual(ids(offsetPageTwo));
      expect(ids(await get(adminToken(), `${newestFirst}&page=2`))).not.toEqual(ids(offsetPageTwo));
      expect(linksOf(followed.headers.link).next).toMatch(/after=/);
      // A followed page counts its walk's orders, leaving the new ones out (docs/API.md §13, "Following links"); a plain one all.
      expect((followed.body as { totalElementCount: number }).totalElementCount).toBe(orders.length);
      const plain = await get(adminToken(), `${newestFirst}&page=2`);
      expect((plain.body as { totalElementCount: number }).totalElementCount).toBe(orders.length + placed.length);

      // Oldest first, the new orders would come last; the walk's bound keeps them out of it.
      let response = oldestPageOne;
      const walked: number[] = ids(response);
      for (let next = linksOf(response.headers.link).next; next; next = linksOf(response.headers.link).next) {
        response = await get(adminToken(), next);
        walked.push(...ids(response));
      }
      expect(walked).toHaveLength(orders.length);
      expect(walked.filter((id) => id > maxId)).toEqual([]);
    } finally {
      await context.dataSource.query(`DELETE FROM orders WHERE id > ?`, [maxId]);
    }
  });
});
