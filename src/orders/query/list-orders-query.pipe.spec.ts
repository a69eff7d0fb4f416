import { describe, expect, it } from '@jest/globals';
import { ForbiddenException } from '@nestjs/common';
import { Role } from '../../auth/role';
import { InvalidParametersException } from '../../common/problem/invalid-parameters.exception';
import type { AppConfig } from '../../config/app.config';
import { ListOrdersQueryPipe } from './list-orders-query.pipe';

// Only the zone matters to the parser; the other settings are irrelevant here.
const pipe = new ListOrdersQueryPipe({ timeZone: 'Asia/Seoul' } as AppConfig);
const user = { id: 7, role: Role.User };
const admin = { id: 1, role: Role.Admin };

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
    expect(pipe.transform({ caller: user, query: {}, body: undefined })).toEqual({
      page: 1,
      size: 20,
      sort: [
        { field: 'createdAt', direction: 'DESC' },
        { field: 'orderId', direction: 'DESC' },
      ],
      filters: {},
      echoedParameters: [
        ['size', '20'],
        ['sort', 'createdAt,desc'],
      ],
    });
  });

  it('reads every admin filter, statuses as codes and dates as UTC instants', () => {
    const query = pipe.transform({
      caller: admin,
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
    const query = pipe.transform({ caller: admin, query: { size: '5' }, body: { size: 50, page: 3, concertId: 2 } });
    expect(query).toMatchObject({ page: 3, size: 5, filters: { concertId: 2 } });
  });

  it('answers 403 naming every admin filter a user sent, before looking at anything else', () => {
    expect(() =>
      pipe.transform({
        caller: user,
        query: { page: '0', concertId: '1', startDate: 'x', junk: '1' },
        body: undefined,
      }),
    ).toThrow(new ForbiddenException('Only administrators may filter by concertId, startDate'));
  });

  it.each([[[]], ['text'], [42]])('answers 403 to a user’s admin filter whatever the body %j looks like', (body) => {
    expect(() => pipe.transform({ caller: user, query: { userId: '2' }, body })).toThrow(
      new ForbiddenException('Only administrators may filter by userId'),
    );
  });

  it('answers 400 to a body that is no object once the role checks pass', () => {
    expect(errorsOf(() => pipe.transform({ caller: user, query: {}, body: [] }))).toEqual([
      { field: 'body', message: 'the JSON body must be an object of parameters' },
    ]);
  });

  it('collects every invalid parameter into one 400', () => {
    const errors = errorsOf(() =>
      pipe.transform({
        caller: admin,
        query: { page: ['1', '2'], size: '0', sort: 'nope', select: '*' },
        body: { userId: -1 },
      }),
    );
    expect(errors.map((error) => error.field).sort()).toEqual(['page', 'select', 'size', 'sort', 'userId']);
  });

  it('refuses consertId and concertId with different values, and accepts equal ones', () => {
    expect(
      errorsOf(() => pipe.transform({ caller: admin, query: { consertId: '1', concertId: '2' }, body: undefined })),
    ).toEqual([{ field: 'concertId', message: expect.stringContaining('alias') }]);
    expect(
      pipe.transform({ caller: admin, query: { consertId: '2', concertId: '2' }, body: undefined }).filters,
    ).toEqual({ concertId: 2 });
  });

  it('accepts equal bounds at any precision', () => {
    const bound = '2026-03-10T10:00:00.0001Z';
    expect(
      pipe.transform({ caller: admin, query: { startDate: bound, endDate: bound }, body: undefined }).filters,
    ).toEqual({
      createdFrom: Date.parse('2026-03-10T10:00:00.001Z'),
      createdBefore: Date.parse('2026-03-10T10:00:00.001Z'),
    });
  });

  it('refuses a start after the end', () => {
    expect(
      errorsOf(() =>
        pipe.transform({ caller: admin, query: { startDate: '2026-03-02', endDate: '2026-03-01' }, body: undefined }),
      ),
    ).toEqual([{ field: 'startDate', message: 'startDate must not be later than endDate' }]);
  });

  it('echoes the request’s parameters but page for the Link header', () => {
    const query = pipe.transform({
      caller: admin,
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

describe('ListOrdersQueryPipe messages', () => {
  it.each([
    ['\uFFFD', 'page must be an integer of at least 1'],
    ['9007199254740993', 'page must be at most 9007199254740991'],
    ['0', 'page must be an integer of at least 1'],
  ])('explains page=%j by its most telling rule', (page, message) => {
    expect(errorsOf(() => pipe.transform({ caller: user, query: { page }, body: undefined }))).toEqual([
      { field: 'page', message },
    ]);
  });
});
