import { describe, expect, it } from '@jest/globals';
import { Role } from '../../auth/role';
import { InvalidParametersException } from '../../common/problem/invalid-parameters.exception';
import type { AppConfig } from '../../config/app.config';
import { listingVariantOf } from '../listing-variant';
import { ContinuationTokens } from '../paging/continuation';
import { ListOrdersQueryPipe } from './list-orders-query.pipe';

// Only the zone matters to the parser; the other settings are irrelevant here.
const tokens = new ContinuationTokens('a-secret-for-the-pipe-tests-0123456789');
const pipe = new ListOrdersQueryPipe({ timeZone: 'Asia/Seoul' } as AppConfig, tokens);
const user = listingVariantOf({ id: 7, role: Role.User });
const admin = listingVariantOf({ id: 1, role: Role.Admin });

function errorsOf(run: () => unknown): Array<{ field: string; message: string }> {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidParametersException) return error.errors;
    throw error;
  }
  throw new Error('expected a 400');
}

describe('ListOrdersQueryPipe', () => {
  it('applies the defaults: page 1, size 20, createdAt desc then orderId desc', () => {
    expect(pipe.transform({ variant: user, query: {}, body: undefined })).toEqual({
      page: 1,
      size: 20,
      sort: [
        { field: 'createdAt', direction: 'DESC' },
        { field: 'orderId', direction: 'DESC' },
      ],
      // A member's listing is their own orders, whatever the query says.
      filters: { userId: 7 },
      variant: user,
      walkScope: expect.any(String),
      echoedParameters: [
        ['size', '20'],
        ['sort', 'createdAt,desc'],
      ],
    });
  });

  it('takes a writer’s position of either kind of server, and refuses anything else naming the header (docs/API.md §19)', () => {
    const read = (readAfterGtid: string) =>
      pipe.transform({ variant: user, query: {}, body: undefined, readAfterGtid }).writerPosition;
    expect(read(' 0-1-4711 ')).toBe('0-1-4711');
    expect(read('3e11fa47-71ca-11e1-9e33-c80aa9429562:1-23')).toBe('3e11fa47-71ca-11e1-9e33-c80aa9429562:1-23');
    for (const sent of ['', 'yesterday', '0-1', '0-1-5,0-2-6']) {
      expect(errorsOf(() => read(sent))).toEqual([
        { field: 'Read-After-Gtid', message: expect.stringContaining('GTID position of a commit') },
      ]);
    }
    // Listed with the parameters' own problems, in one 400.
    expect(
      errorsOf(() => pipe.transform({ variant: user, query: { size: '0' }, body: undefined, readAfterGtid: 'x' })).map(
        ({ field }) => field,
      ),
    ).toEqual(['size', 'Read-After-Gtid']);
  });

  it('reads every admin filter, statuses as codes and dates as UTC instants', () => {
    const query = pipe.transform({
      variant: admin,
      query: { userId: '4', consertId: '9', orderStatus: '환불 완료', startDate: '2026-03-10', endDate: '2026-03-10' },
      body: undefined,
    });
    expect(query.filters).toEqual({
      userId: 4,
      concertId: 9,
      status: 'REFUNDED',
      createdFrom: Date.parse('2026-03-09T15:00:00Z'),
      createdBefore: Date.parse('2026-03-10T15:00:00Z'),
    });
  });

  it('takes numbers from a JSON body and lets the query string win', () => {
    const query = pipe.transform({ variant: admin, query: { size: '5' }, body: { size: 50, page: 3, concertId: 2 } });
    expect(query).toMatchObject({ page: 3, size: 5, filters: { concertId: 2 } });
  });

  it('answers 400 to a body that is no object (the edge has answered a member’s filters with 403)', () => {
    expect(errorsOf(() => pipe.transform({ variant: user, query: {}, body: [] }))).toEqual([
      { field: 'body', message: 'the JSON body must be an object of parameters' },
    ]);
  });

  it('collects every invalid parameter into one 400', () => {
    const errors = errorsOf(() =>
      pipe.transform({
        variant: admin,
        query: { page: ['1', '2'], size: '0', sort: 'nope', select: '*' },
        body: { userId: -1 },
      }),
    );
    expect(errors.map((error) => error.field).sort()).toEqual(['page', 'select', 'size', 'sort', 'userId']);
  });

  it('refuses consertId and concertId with different values, and accepts equal ones', () => {
    expect(
      errorsOf(() => pipe.transform({ variant: admin, query: { consertId: '1', concertId: '2' }, body: undefined })),
    ).toEqual([{ field: 'concertId', message: expect.stringContaining('alias') }]);
    expect(
      pipe.transform({ variant: admin, query: { consertId: '2', concertId: '2' }, body: undefined }).filters,
    ).toEqual({ concertId: 2 });
  });

  it('accepts equal bounds at any precision', () => {
    const bound = '2026-03-10T10:00:00.0001Z';
    expect(
      pipe.transform({ variant: admin, query: { startDate: bound, endDate: bound }, body: undefined }).filters,
    ).toEqual({
      createdFrom: Date.parse('2026-03-10T10:00:00.001Z'),
      createdBefore: Date.parse('2026-03-10T10:00:00.001Z'),
    });
  });

  it('refuses a start after the end', () => {
    expect(
      errorsOf(() =>
        pipe.transform({ variant: admin, query: { startDate: '2026-03-02', endDate: '2026-03-01' }, body: undefined }),
      ),
    ).toEqual([{ field: 'startDate', message: 'startDate must not be later than endDate' }]);
  });

  it('echoes the request’s parameters but page for the Link header', () => {
    const query = pipe.transform({
      variant: admin,
      query: { page: '2', sort: ['status', 'totalPrice,desc'] },
      body: { orderStatus: 'CANCELLED' },
    });
    expect(query.echoedParameters).toEqual([
      ['size', '20'],
      ['sort', 'status'],
      ['sort', 'totalPrice,desc'],
      ['orderStatus', 'CANCELLED'],
    ]);
  });
});

describe('ListOrdersQueryPipe continuations (docs/API.md §13)', () => {
  const cursor = { direction: 'after' as const, key: [Date.UTC(2026, 2, 10), 'PAYMENT_COMPLETED', 41], bound: 900 };
  const request = { page: '3', size: '5', sort: ['createdAt,desc', 'status'], orderStatus: 'CANCELLED' };
  /** A token as the Link of page 2 of `request` would carry it to page 3. */
  const linkFrom = (query: Record<string, unknown>, variant = admin, written = cursor) =>
    tokens.write(written, 3, pipe.transform({ variant, query, body: undefined }).walkScope);
  const read = (query: Record<string, unknown>, variant = admin) => pipe.transform({ variant, query, body: undefined });

  it('reads the cursor of a continuation the service wrote for this very request, and echoes no continuation', () => {
    const query = read({ ...request, after: linkFrom(request) });
    expect(query.cursor).toEqual(cursor);
    expect(query.echoedParameters.map(([name]) => name)).not.toContain('after');
    expect(
      read({ ...request, before: tokens.write({ ...cursor, direction: 'before' }, 3, query.walkScope) }).cursor,
    ).toMatchObject({ direction: 'before' });
  });

  it.each([
    ['another page', { page: '4' }],
    ['another size', { size: '6' }],
    ['another sort', { sort: ['createdAt,desc'] }],
    ['another filter', { orderStatus: 'REFUNDED' }],
    ['an added filter', { userId: '3' }],
  ])('refuses, naming after, a continuation sent with %s', (_, change) => {
    expect(errorsOf(() => read({ ...request, ...change, after: linkFrom(request) }))).toEqual([
      { field: 'after', message: expect.stringContaining('was not written by this service for this request') },
    ]);
  });

  it('refuses a continuation that was altered, cut, or is sent in the other direction', () => {
    const token = linkFrom(request);
    const flipped = Buffer.from(token, 'base64url');
    flipped[flipped.length - 1] ^= 1;
    const plain = Buffer.from(JSON.stringify([900, Date.UTC(2026, 2, 10), 'PAYMENT_COMPLETED', 1])).toString(
      'base64url',
    );
    for (const forged of [flipped.toString('base64url'), plain, token.slice(0, -4), `${token}.x`, 'not-a-token', '']) {
      expect(errorsOf(() => read({ ...request, after: forged }))[0].field).toBe('after');
    }
    expect(errorsOf(() => read({ ...request, before: token }))[0].field).toBe('before');
  });

  it('refuses one member’s continuation to another, and an administrator’s to a member', () => {
    const memberQuery = { page: '3', size: '5' };
    // The default sort: createdAt, then orderId.
    const memberSeek = { ...cursor, key: [Date.UTC(2026, 2, 10), 41] };
    const own = linkFrom(memberQuery, user, memberSeek);
    expect(read({ ...memberQuery, after: own }, user).cursor).toBeDefined();
    expect(
      errorsOf(() => read({ ...memberQuery, after: own }, listingVariantOf({ id: 8, role: Role.User })))[0].field,
    ).toBe('after');
    expect(
      errorsOf(() => read({ ...memberQuery, after: linkFrom(memberQuery, admin, memberSeek) }, user))[0].field,
    ).toBe('after');
  });

  it('refuses after and before together, and a continuation that is not a string', () => {
    const token = linkFrom(request);
    expect(errorsOf(() => read({ ...request, after: token, before: token }))).toEqual([
      { field: 'before', message: expect.stringContaining('send one of them') },
    ]);
    expect(errorsOf(() => pipe.transform({ variant: admin, query: {}, body: { after: 42 } }))[0].field).toBe('after');
    expect(errorsOf(() => read({ after: ['a', 'b'] }))[0]).toEqual({
      field: 'after',
      message: 'after must be given once',
    });
  });
});

describe('ListOrdersQueryPipe messages', () => {
  it.each([
    ['\uFFFD', 'page must be an integer of at least 1'],
    ['9007199254740993', 'page must be at most 9007199254740991'],
    ['0', 'page must be an integer of at least 1'],
  ])('explains page=%j by its most telling rule', (page, message) => {
    expect(errorsOf(() => pipe.transform({ variant: user, query: { page }, body: undefined }))).toEqual([
      { field: 'page', message },
    ]);
  });

  describe('an export (docs/API.md §13)', () => {
    it('refuses page, size and continuations, each by name, with the other problems of the request', () => {
      const query = { page: '2', size: '10', after: 'x', before: 'y', sort: 'price' };
      expect(
        errorsOf(() => pipe.transform({ variant: admin, query, body: undefined, exportFormat: 'csv' })).map(
          (error) => error.field,
        ),
      ).toEqual(['page', 'size', 'after', 'before', 'sort', 'reason']);
    });

    it('takes an administrator’s reason and the fields named, and needs neither of a member', () => {
      const exported = pipe.transform({
        variant: admin,
        query: { reason: 'Settlement with the organiser', fields: 'totalPrice,userId' },
        body: undefined,
        exportFormat: 'csv',
      });
      expect(exported).toMatchObject({ reason: 'Settlement with the organiser', fields: ['userId', 'totalPrice'] });
      const own = pipe.transform({ variant: user, query: {}, body: undefined, exportFormat: 'ndjson' });
      expect(own.reason).toBeUndefined();
      // userId is not a field of a member's orders.
      expect(
        errorsOf(() =>
          pipe.transform({ variant: user, query: { fields: 'userId' }, body: undefined, exportFormat: 'csv' }),
        ).map((error) => error.field),
      ).toEqual(['fields']);
    });

    it('takes neither on a page, where they are no parameters', () => {
      const query = { reason: 'Settlement with the organiser', fields: 'orderId' };
      expect(errorsOf(() => pipe.transform({ variant: admin, query, body: undefined })).map((e) => e.field)).toEqual([
        'reason',
        'fields',
      ]);
    });

    it('keeps filters and sort as pages read them', () => {
      const query = pipe.transform({
        variant: admin,
        query: { orderStatus: 'CANCELLED', sort: 'totalPrice,desc', reason: 'Refund audit of March, for finance' },
        body: undefined,
        exportFormat: 'ndjson',
      });
      expect(query).toMatchObject({
        filters: { status: 'CANCELLED' },
        sort: [
          { field: 'totalPrice', direction: 'DESC' },
          { field: 'orderId', direction: 'DESC' },
        ],
      });
    });
  });
});
