import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  BOUNDARY_DAY,
  FOREIGN_STATUS,
  MEMBER_WITHOUT_ORDERS,
  MEMBERS,
  seedDataset,
  seoul,
  STATUSES,
  type TestOrder,
} from '../support/data/dataset';
import {
  ADMIN_SORT_FIELDS,
  expectedPage,
  matching,
  USER_SORT_FIELDS,
  type Direction,
  type Field,
  type OracleQuery,
} from '../support/data/oracle';
import { linksOf } from '../support/assertions/link-header';
import { expectProblem } from '../support/assertions/problem';
import { freshMysqlDatabase, mysqlEnvironment } from '../support/app/test-database';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { adminToken, signToken, unsignedToken, userToken } from '../support/app/tokens';
import { api, bearer } from '../support/app/api-client';

export type DatabaseKind = 'sqlite' | 'mysql';

const DIRECTIONS: Direction[] = ['asc', 'desc'];
const LABELS: Record<string, string> = {
  PAYMENT_PENDING: '결제 대기',
  PAYMENT_COMPLETED: '결제 완료',
  CANCELLED: '주문 취소',
  REFUNDED: '환불 완료',
};
const { year, month, day } = BOUNDARY_DAY;
const boundaryDate = `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;

/**
 * docs/API.md §1–§7 as executable examples, run once per database. Every 200 is
 * compared byte for byte (so key order counts) with the oracle's page,
 * computed from the seeded rows without any of the service's code.
 */
export function describeOrdersContract(database: DatabaseKind): void {
  describe(`GET /orders on ${database}`, () => {
    let context: TestApp;
    let orders: TestOrder[];

    beforeAll(async () => {
      const environment = database === 'mysql' ? mysqlEnvironment(await freshMysqlDatabase('contract')) : {};
      context = await startTestApp(environment);
      orders = await seedDataset(context.dataSource, 20261121);
    }, 120_000);

    afterAll(async () => {
      await context?.close();
    });

    const get = (token: string | undefined, query: string | Record<string, unknown> = '') =>
      api(context.server, token).get('/orders').query(query);

    async function expectPageOf(token: string, query: string | Record<string, unknown>, oracle: OracleQuery) {
      const response = await get(token, query);
      const expected = expectedPage(orders, oracle);
      expect(response.status).toBe(200);
      expect(response.body).toEqual(expected);
      // Same values in the same key order (docs/API.md §4).
      expect(response.text).toBe(JSON.stringify(expected));
      return response;
    }

    const toQuery = (sort: Array<[Field, Direction]>): string =>
      sort.map(([field, direction]) => `sort=${field},${direction}`).join('&');

    describe('the data under test', () => {
      it('has every status and one §5 does not list, orders without seats, prices with cents and ties on createdAt', () => {
        expect(new Set(orders.map((order) => order.status))).toEqual(new Set([...STATUSES, FOREIGN_STATUS]));
        expect(orders.some((order) => order.seats.length === 0)).toBe(true);
        expect(orders.some((order) => !Number.isInteger(order.totalPrice))).toBe(true);
        const createdAts = orders.map((order) => order.createdAtMs);
        expect(new Set(createdAts).size).toBeLessThan(createdAts.length);
      });
    });

    describe('authentication (§2)', () => {
      const rejected: Array<[string, () => string | undefined, string?]> = [
        ['no Authorization header', () => undefined],
        ['an empty bearer token', () => ''],
        ['a token that is not a JWT', () => 'not-a-jwt'],
        ['a two-segment token', () => adminToken().split('.').slice(0, 2).join('.')],
        [
          'a token signed with another secret',
          () => signToken({ sub: 1, role: 'ADMIN' }, { secret: 'another-secret-another-secret-123456' }),
        ],
        ['an unsigned token (alg none)', () => unsignedToken({ sub: 1, role: 'ADMIN' })],
        [
          'an algorithm outside the allow-list (HS512)',
          () => signToken({ sub: 1, role: 'ADMIN' }, { algorithm: 'HS512' }),
        ],
        [
          'a token expired past the clock tolerance',
          () => signToken({ sub: 1, role: 'ADMIN' }, { expiresInSeconds: -31 - 5 }),
        ],
        ['a token without exp', () => signToken({ sub: 1, role: 'ADMIN' }, { expiresInSeconds: null })],
        [
          'a token not valid before a time past the tolerance',
          () => signToken({ sub: 1, role: 'ADMIN' }, { notBeforeSeconds: 120 }),
        ],
        [
          'a token from another issuer',
          () => signToken({ sub: 1, role: 'ADMIN' }, { issuer: 'https://evil.example/' }),
        ],
        ['a token without issuer', () => signToken({ sub: 1, role: 'ADMIN' }, { issuer: null })],
        ['a token for another audience', () => signToken({ sub: 1, role: 'ADMIN' }, { audience: 'billing-api' })],
        ['a token without audience', () => signToken({ sub: 1, role: 'ADMIN' }, { audience: null })],
      ];

      it.each(rejected)('answers 401 with WWW-Authenticate: Bearer to %s', async (_, token) => {
        const response = await get(token());
        expectProblem(response, 401);
        expect(response.headers['www-authenticate']).toMatch(/^Bearer\b/);
      });

      it('answers 401 to another authorization scheme', async () => {
        const response = await request(context.server).get('/orders').set('Authorization', 'Basic dXNlcjpwYXNz');
        expectProblem(response, 401);
        expect(response.headers['www-authenticate']).toMatch(/^Bearer\b/);
      });

      it('accepts a token expired within the clock tolerance, and one whose nbf is within it', async () => {
        const expired = signToken({ sub: 1, role: 'USER' }, { expiresInSeconds: -10 });
        const early = signToken({ sub: 1, role: 'USER' }, { notBeforeSeconds: 10 });
        expect((await get(expired)).status).toBe(200);
        expect((await get(early)).status).toBe(200);
      });

      const forbidden: Array<[string, Record<string, unknown>]> = [
        ['sub 0', { sub: 0, role: 'USER' }],
        ['a negative sub', { sub: -4, role: 'USER' }],
        ['a fractional sub', { sub: 1.5, role: 'USER' }],
        ['a non-numeric sub', { sub: 'alice', role: 'USER' }],
        ['a sub with a leading zero', { sub: '01', role: 'USER' }],
        ['no sub', { role: 'USER' }],
        ['a lower-case role', { sub: 1, role: 'admin' }],
        ['an unknown role', { sub: 1, role: 'SUPERUSER' }],
        ['no role', { sub: 1 }],
        ['an empty roles array', { sub: 1, roles: [] }],
      ];

      it.each(forbidden)('answers 403 to a valid token with %s', async (_, claims) => {
        expectProblem(await get(signToken(claims)), 403);
      });

      it('takes the admin variant when ADMIN is anywhere in roles', async () => {
        await expectPageOf(signToken({ sub: 5, roles: ['USER', 'ADMIN'] }), '', { role: 'ADMIN', callerId: 5 });
      });

      it('takes the user variant for roles [USER], and reads sub as a number or a decimal string', async () => {
        await expectPageOf(signToken({ sub: 3, roles: ['USER'] }), '', { role: 'USER', callerId: 3 });
        await expectPageOf(signToken({ sub: 3, role: 'USER' }), '', { role: 'USER', callerId: 3 });
        await expectPageOf(signToken({ sub: '3', role: 'USER' }), '', { role: 'USER', callerId: 3 });
      });
    });

    describe('user variant (§1, §4)', () => {
      it.each(MEMBERS)('lists only member %i’s orders, newest first, without userId', async (member) => {
        const response = await expectPageOf(userToken(member), '', { role: 'USER', callerId: member });
        expect(JSON.stringify(response.body)).not.toContain('userId');
      });

      it('answers an empty page to a member without orders', async () => {
        const response = await expectPageOf(userToken(MEMBER_WITHOUT_ORDERS), '', {
          role: 'USER',
          callerId: MEMBER_WITHOUT_ORDERS,
        });
        expect(response.body).toMatchObject({
          totalPages: 0,
          totalElementCount: 0,
          firstPage: true,
          lastPage: true,
          elements: [],
        });
        expect(response.headers.link).toBeUndefined();
      });

      const userSorts = USER_SORT_FIELDS.flatMap((field) =>
        DIRECTIONS.map((direction): [Field, Direction] => [field, direction]),
      );
      it.each(userSorts)('sorts by %s %s', async (field, direction) => {
        await expectPageOf(userToken(1), `${toQuery([[field, direction]])}&size=7&page=2`, {
          role: 'USER',
          callerId: 1,
          sort: [[field, direction]],
          size: 7,
          page: 2,
        });
      });

      it('visits each of the member’s orders exactly once when walking every page', async () => {
        const seen: number[] = [];
        for (let page = 1; ; page += 1) {
          const response = await expectPageOf(
            userToken(1),
            { page, size: 9 },
            { role: 'USER', callerId: 1, page, size: 9 },
          );
          seen.push(
            ...(response.body as { elements: Array<{ orderId: number }> }).elements.map((element) => element.orderId),
          );
          if (!(response.body as { hasNextPage: boolean }).hasNextPage) break;
        }
        const own = matching(orders, { role: 'USER', callerId: 1 }).map((order) => order.id);
        expect([...seen].sort()).toEqual([...own].sort());
      });

      it('refuses to sort by userId', async () => {
        expectProblem(await get(userToken(1), 'sort=userId,asc'), 400, ['sort']);
      });
    });

    describe('admin variant (§1, §4)', () => {
      it('lists every order, newest first, with userId', async () => {
        await expectPageOf(adminToken(), '', { role: 'ADMIN', callerId: 9000 });
      });

      const adminSorts = ADMIN_SORT_FIELDS.flatMap((field) =>
        DIRECTIONS.map((direction): [Field, Direction] => [field, direction]),
      );
      it.each(adminSorts)('sorts by %s %s', async (field, direction) => {
        await expectPageOf(adminToken(), `${toQuery([[field, direction]])}&size=13&page=3`, {
          role: 'ADMIN',
          callerId: 9000,
          sort: [[field, direction]],
          size: 13,
          page: 3,
        });
      });

      it('sorts by several keys in the order given, direction case-insensitive, defaulting to asc', async () => {
        await expectPageOf(adminToken(), 'sort=status&sort=totalPrice,DESC&size=50', {
          role: 'ADMIN',
          callerId: 9000,
          sort: [
            ['status', 'asc'],
            ['totalPrice', 'desc'],
          ],
          size: 50,
        });
      });

      it('breaks ties on createdAt by orderId in the sort’s direction, so pages neither skip nor repeat', async () => {
        for (const page of [1, 2, 3]) {
          await expectPageOf(
            adminToken(),
            { sort: 'createdAt,asc', userId: 1, size: 5, page },
            {
              role: 'ADMIN',
              callerId: 9000,
              sort: [['createdAt', 'asc']],
              userId: 1,
              size: 5,
              page,
            },
          );
        }
      });

      it.each([1, 100])('honours size=%i', async (size) => {
        await expectPageOf(adminToken(), { size }, { role: 'ADMIN', callerId: 9000, size });
      });

      it('answers the last page and a page past the end', async () => {
        const total = orders.length;
        const lastPage = Math.ceil(total / 20);
        await expectPageOf(adminToken(), { page: lastPage }, { role: 'ADMIN', callerId: 9000, page: lastPage });
        const past = await expectPageOf(
          adminToken(),
          { page: lastPage + 5 },
          { role: 'ADMIN', callerId: 9000, page: lastPage + 5 },
        );
        expect(past.body).toMatchObject({
          currentPage: lastPage + 5,
          elements: [],
          lastPage: true,
          hasNextPage: false,
          hasPrevious: true,
        });
      });

      it.each(MEMBERS)('filters by userId %i', async (userId) => {
        await expectPageOf(adminToken(), { userId, size: 30 }, { role: 'ADMIN', callerId: 9000, userId, size: 30 });
      });

      it('filters by consertId, by its alias concertId, and by both when equal', async () => {
        for (const query of [{ consertId: '4' }, { concertId: 4 }, { consertId: 4, concertId: 4 }]) {
          await expectPageOf(adminToken(), query, { role: 'ADMIN', callerId: 9000, concertId: 4 });
        }
      });

      it.each(STATUSES)('filters by status %s, given as its label or its code', async (status) => {
        await expectPageOf(adminToken(), { orderStatus: LABELS[status] }, { role: 'ADMIN', callerId: 9000, status });
        await expectPageOf(adminToken(), { orderStatus: status }, { role: 'ADMIN', callerId: 9000, status });
      });

      it('shows a stored status code that §5 does not list as the code itself, without failing the page', async () => {
        const foreign = orders.find((order) => order.status === FOREIGN_STATUS);
        const response = await expectPageOf(
          adminToken(),
          { userId: foreign?.userId, size: 100 },
          { role: 'ADMIN', callerId: 9000, userId: foreign?.userId, size: 100 },
        );
        const elements = (response.body as { elements: Array<{ orderId: number; status: string }> }).elements;
        expect(elements.find((element) => element.orderId === foreign?.id)?.status).toBe(FOREIGN_STATUS);
      });

      it('combines every filter', async () => {
        await expectPageOf(
          adminToken(),
          {
            userId: 1,
            consertId: 3,
            orderStatus: 'PAYMENT_COMPLETED',
            startDate: '2026-02-01',
            endDate: '2026-11-30',
            size: 5,
          },
          {
            role: 'ADMIN',
            callerId: 9000,
            userId: 1,
            concertId: 3,
            status: 'PAYMENT_COMPLETED',
            fromMs: seoul(2026, 2, 1),
            toMs: seoul(2026, 12, 1) - 1,
            size: 5,
          },
        );
      });

      const dayStart = seoul(year, month, day);
      const dayEnd = seoul(year, month, day + 1) - 1;
      const ranges: Array<[string, Record<string, string>, number | undefined, number | undefined]> = [
        [
          'a bare date includes its whole Seoul day',
          { startDate: boundaryDate, endDate: boundaryDate },
          dayStart,
          dayEnd,
        ],
        [
          'a local date-time end includes the rest of that second',
          { startDate: `${boundaryDate}T00:00:00`, endDate: `${boundaryDate}T23:59:59` },
          dayStart,
          dayEnd,
        ],
        ['UTC bounds', { startDate: `${year}-03-09T15:00:00Z`, endDate: `${year}-03-10T14:59:59Z` }, dayStart, dayEnd],
        [
          'offset bounds',
          { startDate: `${boundaryDate}T00:00:00+09:00`, endDate: `${boundaryDate}T06:59:59-08:00` },
          dayStart,
          dayEnd,
        ],
        [
          'a fractional end includes only up to that millisecond',
          { startDate: `${boundaryDate}T00:00:00`, endDate: `${boundaryDate}T00:00:00.000` },
          dayStart,
          dayStart,
        ],
        [
          'equal bounds',
          { startDate: `${boundaryDate}T00:00:00`, endDate: `${boundaryDate}T00:00:00` },
          dayStart,
          dayStart + 999,
        ],
        ['only a start', { startDate: `${boundaryDate}T00:00:00.001` }, dayStart + 1, undefined],
        ['only an end', { endDate: '2026-01-31' }, undefined, seoul(2026, 2, 1) - 1],
      ];
      it.each(ranges)('filters createdAt with %s', async (_, query, fromMs, toMs) => {
        const expected = { role: 'ADMIN' as const, callerId: 9000, fromMs, toMs, size: 100 };
        expect(matching(orders, expected).length).toBeGreaterThan(0);
        await expectPageOf(adminToken(), { ...query, size: 100 }, expected);
      });

      it('accepts equal bounds at any precision (§3), matching what lies within them', async () => {
        const bound = `${boundaryDate}T00:00:00.0001`;
        const response = await expectPageOf(
          adminToken(),
          { startDate: bound, endDate: bound },
          // Times are stored to the millisecond: nothing lies between .0001 and the end of millisecond .000.
          { role: 'ADMIN', callerId: 9000, fromMs: dayStart + 1, toMs: dayStart },
        );
        expect((response.body as { totalElementCount: number }).totalElementCount).toBe(0);
      });

      it('reads a + sent unencoded before an offset, which arrives as a space, as +', async () => {
        // A query string written by hand: `+` is not percent-encoded, so the server decodes it as a space.
        const raw = `startDate=${boundaryDate}T00:00:00+09:00&endDate=${boundaryDate}T23:59:59+09:00&size=100`;
        const expected = { role: 'ADMIN' as const, callerId: 9000, fromMs: dayStart, toMs: dayEnd, size: 100 };
        expect(matching(orders, expected).length).toBeGreaterThan(0);
        await expectPageOf(adminToken(), raw, expected);
      });
    });

    describe('parameters (§3)', () => {
      const invalid: Array<[string, string]> = [
        ['page=0', 'page'],
        ['page=-1', 'page'],
        ['page=1.5', 'page'],
        ['page=abc', 'page'],
        ['page=', 'page'],
        ['page=1e3', 'page'],
        ['size=0', 'size'],
        ['size=101', 'size'],
        ['size=ten', 'size'],
        ['sort=price', 'sort'],
        ['sort=createdAt,up', 'sort'],
        ['sort=createdAt,desc,SLEEP(5)', 'sort'],
        ['sort=', 'sort'],
        ['sort=status&sort=status,desc', 'sort'],
        ['page=1&page=2', 'page'],
        ['size=5&size=5', 'size'],
        ['debug=true', 'debug'],
        ['status%5B%24ne%5D=x', 'status[$ne]'],
      ];
      it.each(invalid)('answers 400 naming the parameter to %s (both variants)', async (query, field) => {
        const userBody = expectProblem(await get(userToken(1), query), 400, [field]);
        expect(userBody.detail).toContain(field);
        expectProblem(await get(adminToken(), query), 400, [field]);
      });

      const invalidFilters: Array<[string, string]> = [
        ['userId=0', 'userId'],
        ['userId=-3', 'userId'],
        ['userId=1.5', 'userId'],
        ['userId=abc', 'userId'],
        ['userId=1&userId=2', 'userId'],
        ['consertId=x', 'consertId'],
        ['concertId=99999999999999999999', 'concertId'],
        ['consertId=3&concertId=4', 'concertId'],
        ['orderStatus=DONE', 'orderStatus'],
        ['startDate=2026-02-30', 'startDate'],
        ['startDate=0000-00-00', 'startDate'],
        ['startDate=1767225600', 'startDate'],
        ['endDate=2026-13-01', 'endDate'],
        ['endDate=2026-01-01T24:00:00', 'endDate'],
        ['endDate=2026-01-01T10:00:00+15:00', 'endDate'],
        ['startDate=2026-03-02&endDate=2026-03-01', 'startDate'],
      ];
      it.each(invalidFilters)('answers 400 naming the filter to %s', async (query, field) => {
        expectProblem(await get(adminToken(), query), 400, [field]);
      });

      it('names the allowed values when the status is unknown', async () => {
        const body = expectProblem(await get(adminToken(), 'orderStatus=DONE'), 400, ['orderStatus']);
        const [error] = body.errors as Array<{ message: string }>;
        for (const allowed of [...Object.values(LABELS), ...STATUSES]) expect(error.message).toContain(allowed);
      });

      it('lists every invalid parameter at once', async () => {
        expectProblem(await get(adminToken(), 'page=0&size=500&sort=nope&userId=x&extra=1'), 400, [
          'page',
          'size',
          'sort',
          'userId',
          'extra',
        ]);
      });

      it.each([
        'userId=2',
        'consertId=1',
        'concertId=1',
        'orderStatus=REFUNDED',
        'startDate=2026-01-01',
        'endDate=2026-01-01',
      ])('answers 403 naming the filter when a user sends %s', async (query) => {
        const body = expectProblem(await get(userToken(1), query), 403);
        expect(body.detail).toContain(query.split('=')[0]);
      });

      it('checks the token first (401), then the role and admin filters (403), then the rest (400)', async () => {
        expectProblem(await get(undefined, 'userId=2&page=0'), 401);
        expectProblem(await get(userToken(1), 'userId=2&page=0&bogus=1'), 403);
        expectProblem(await get(userToken(1), 'page=0'), 400, ['page']);
      });

      it('never lets a user see another member’s orders or count', async () => {
        const response = await get(userToken(2), 'userId=1');
        expectProblem(response, 403);
        expect(response.text).not.toContain('totalElementCount');
      });

      describe('JSON body on GET', () => {
        const withBody = (token: string, body: unknown, query = '') =>
          request(context.server)
            .get('/orders')
            .query(query)
            .set(bearer(token))
            .set('Content-Type', 'application/json')
            .send(typeof body === 'string' ? body : JSON.stringify(body));

        it.each([['[]'], ['"text"'], ['42']])(
          'answers 403 to a user’s admin filter whatever the body (%s) looks like',
          async (body) => {
            const response = await withBody(userToken(1), body, 'userId=2');
            expect(expectProblem(response, 403).detail).toContain('userId');
          },
        );

        it('accepts the parameters as body fields, sort as an array', async () => {
          const response = await withBody(adminToken(), {
            userId: 2,
            sort: ['status,asc', 'totalPrice,desc'],
            size: 4,
            page: 2,
          });
          const expected = expectedPage(orders, {
            role: 'ADMIN',
            callerId: 9000,
            userId: 2,
            sort: [
              ['status', 'asc'],
              ['totalPrice', 'desc'],
            ],
            size: 4,
            page: 2,
          });
          expect(response.status).toBe(200);
          expect(response.text).toBe(JSON.stringify(expected));
        });

        it('lets the query string win over the body', async () => {
          const response = await withBody(adminToken(), { size: 4, consertId: 2 }, 'size=6');
          expect(response.status).toBe(200);
          expect(response.text).toBe(
            JSON.stringify(expectedPage(orders, { role: 'ADMIN', callerId: 9000, concertId: 2, size: 6 })),
          );
        });

        it('applies the same rules to body fields', async () => {
          expectProblem(await withBody(userToken(1), { userId: 2 }), 403);
          expectProblem(await withBody(adminToken(), { page: 0, size: '7', extra: true }), 400, ['page', 'extra']);
          expectProblem(await withBody(adminToken(), { page: null }), 400, ['page']);
          expectProblem(await withBody(adminToken(), { sort: [1] }), 400, ['sort']);
          expectProblem(await withBody(adminToken(), '{"__proto__": {"isAdmin": true}}'), 400, ['__proto__']);
          expectProblem(await withBody(adminToken(), '{"constructor": {"prototype": {"x": 1}}}'), 400, ['constructor']);
        });

        it('checks the token and the role before reading a malformed body', async () => {
          const malformed = (token?: string, query = '') =>
            api(context.server, token)
              .get('/orders')
              .query(query)
              .set('Content-Type', 'application/json')
              .send('{"page": ');
          expectProblem(await malformed(), 401);
          expectProblem(await malformed(userToken(1), 'userId=2'), 403);
          expect(expectProblem(await malformed(userToken(1)), 400, ['body'])).toMatchObject({
            type: '/problems/invalid-parameters',
            detail: 'The request body is not valid JSON',
          });
        });

        it('answers 413 to a body over 16 KB', async () => {
          expectProblem(await withBody(adminToken(), { sort: Array(2000).fill('createdAt,desc') }), 413);
        });

        it('answers 400 to a body that is not an object, and to malformed JSON', async () => {
          expectProblem(await withBody(adminToken(), [1, 2]), 400, ['body']);
          const malformed = await api(context.server, adminToken())
            .get('/orders')
            .set('Content-Type', 'application/json')
            .send('{"page": 2,');
          expectProblem(malformed, 400, ['body']);
        });

        it('refuses a body in another media type with a typed 415, rather than ignoring the parameters it holds', async () => {
          for (const [contentType, body] of [
            ['text/plain', 'page=2'],
            ['application/x-www-form-urlencoded', 'page=2&size=5'],
          ]) {
            const refused = await api(context.server, adminToken())
              .get('/orders')
              .set('Content-Type', contentType)
              .send(body);
            expect(expectProblem(refused, 415)).toMatchObject({ type: '/problems/unsupported-media-type' });
          }
          // A JSON body in another charset than UTF-8 cannot be read either.
          const latin = await api(context.server, adminToken())
            .get('/orders')
            .set('Content-Type', 'application/json; charset=latin1')
            .send('{"page": 2}');
          expect(expectProblem(latin, 415)).toMatchObject({ type: '/problems/unsupported-media-type' });
          // No body at all, whatever its declared type: nothing to refuse.
          const empty = await api(context.server, adminToken()).get('/orders').set('Content-Type', 'text/plain');
          expect(empty.status).toBe(200);
          // The token and the role are checked first, as for any other problem of the request.
          const anonymous = await request(context.server)
            .get('/orders')
            .set('Content-Type', 'text/plain')
            .send('page=2');
          expectProblem(anonymous, 401);
        });
      });

      describe('Link header (§4)', () => {
        it('links first, prev, next and last with every parameter, body ones included', async () => {
          const response = await request(context.server)
            .get('/orders')
            .query('size=5&page=3&sort=totalPrice,desc')
            .set(bearer(adminToken()))
            .set('Content-Type', 'application/json')
            .send(JSON.stringify({ orderStatus: '결제 완료' }));
          expect(response.status).toBe(200);
          const total = (response.body as { totalPages: number }).totalPages;
          const rest = '&size=5&sort=totalPrice,desc&orderStatus=%EA%B2%B0%EC%A0%9C%20%EC%99%84%EB%A3%8C';
          // `prev` and `next` also continue the walk (§13: test/e2e/walks.e2e-spec.ts).
          const continuation = '[A-Za-z0-9_-]+';
          const escaped = rest.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          expect(linksOf(response.headers.link)).toEqual({
            first: `/orders?page=1${rest}`,
            prev: expect.stringMatching(new RegExp(`^/orders\\?page=2${escaped}&before=${continuation}$`)),
            next: expect.stringMatching(new RegExp(`^/orders\\?page=4${escaped}&after=${continuation}$`)),
            last: `/orders?page=${total}${rest}`,
          });
        });

        it('has no prev on the first page and no next on the last', async () => {
          expect(Object.keys(linksOf((await get(adminToken(), 'page=1')).headers.link))).toEqual([
            'first',
            'next',
            'last',
          ]);
          const lastPage = Math.ceil(orders.length / 20);
          expect(Object.keys(linksOf((await get(adminToken(), { page: lastPage })).headers.link))).toEqual([
            'first',
            'prev',
            'last',
          ]);
          expect(Object.keys(linksOf((await get(adminToken(), { page: lastPage + 1 })).headers.link))).toEqual([
            'first',
            'prev',
            'last',
          ]);
        });
      });
    });

    describe('polling (§13)', () => {
      it('tags every page with a strong ETag of its body, kept private and revalidated', async () => {
        const response = await get(userToken(MEMBERS[0]), 'size=5');
        expect(response.status).toBe(200);
        expect(response.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
        expect(response.headers['cache-control']).toBe('private, no-cache');
        // The same bytes, the same tag; another page, another tag.
        expect((await get(userToken(MEMBERS[0]), 'size=5')).headers.etag).toBe(response.headers.etag);
        expect((await get(userToken(MEMBERS[0]), 'size=5&page=2')).headers.etag).not.toBe(response.headers.etag);
        expect((await get(adminToken(), 'size=5')).headers.etag).not.toBe(response.headers.etag);
      });

      it('answers 304 without a body to a matching If-None-Match, in every form RFC 9110 allows', async () => {
        const { headers } = await get(adminToken(), 'size=3');
        const etag = String(headers.etag);
        for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
          const response = await get(adminToken(), 'size=3').set('If-None-Match', ifNoneMatch);
          expect(response.status).toBe(304);
          expect(response.text).toBe('');
          expect(response.headers.etag).toBe(etag);
          expect(response.headers['cache-control']).toBe('private, no-cache');
          expect(response.headers.link).toBe(headers.link);
        }
        // A reload that still sends its tag asked for the comparison.
        const reload = get(adminToken(), 'size=3').set('If-None-Match', etag).set('Cache-Control', 'no-cache');
        expect((await reload).status).toBe(304);
        expect((await get(adminToken(), 'size=3').set('If-None-Match', '"other"')).status).toBe(200);
      });

      it('answers the changed page, with a new tag, once an order on it changes', async () => {
        const member = MEMBERS[1];
        const first = await get(userToken(member), 'size=3');
        const [newest] = (first.body as { elements: Array<{ orderId: number }> }).elements;
        const stored = orders.find((order) => order.id === newest.orderId)?.status;
        const changedStatus = stored === 'REFUNDED' ? 'CANCELLED' : 'REFUNDED';
        const setStatus = (status: string | undefined) =>
          context.dataSource.query('UPDATE orders SET status = ? WHERE id = ?', [status, newest.orderId]);
        await setStatus(changedStatus);
        try {
          const changed = await get(userToken(member), 'size=3').set('If-None-Match', String(first.headers.etag));
          expect(changed.status).toBe(200);
          expect(changed.headers.etag).not.toBe(first.headers.etag);
          expect((changed.body as { elements: Array<{ status: string }> }).elements[0].status).toBe(
            LABELS[changedStatus],
          );
        } finally {
          await setStatus(stored);
        }
        expect((await get(userToken(member), 'size=3').set('If-None-Match', String(first.headers.etag))).status).toBe(
          304,
        );
      });

      it('tags no error', async () => {
        const response = await get(adminToken(), 'size=0');
        expectProblem(response, 400);
        expect(response.headers.etag).toBeUndefined();
      });
    });

    describe('errors (§6)', () => {
      it.each(['/nope', '/orders/1', '/orders/..%2Fadmin'])('answers 404 problem+json to GET %s', async (path) => {
        expectProblem(await api(context.server, adminToken()).get(path), 404);
      });

      it('answers 404 problem+json to a method the route does not have', async () => {
        expectProblem(await api(context.server, adminToken()).delete('/orders'), 404);
      });

      it('carries the request id in X-Request-Id and in the problem’s instance', async () => {
        const response = await get(undefined).set('X-Request-Id', 'trace-1234');
        expect(response.headers['x-request-id']).toBe('trace-1234');
        expect(expectProblem(response, 401).instance).toBe('urn:request:trace-1234');
      });
    });

    describe('types of the stored values (§4, §7)', () => {
      it('returns ids and prices as JSON numbers, cents intact', async () => {
        const response = await get(adminToken(), { sort: 'totalPrice,desc', size: 100 });
        const elements = (response.body as { elements: Array<Record<string, unknown>> }).elements;
        for (const element of elements) {
          for (const key of ['orderId', 'userId', 'concertId', 'totalPrice'])
            expect(typeof element[key]).toBe('number');
          for (const seat of element.seats as Array<Record<string, unknown>>) {
            expect(typeof seat.seatPriceId).toBe('number');
            expect(typeof seat.price).toBe('number');
          }
        }
        expect(elements[0].totalPrice).toBe(9_999_999_999.99);
      });
    });
  });
}
