import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { Role } from '../auth/role';
import { LocalTimeFormatter } from '../common/time/local-time';
import { ProblemException } from '../common/problem/problem-details';
import { LostPositionError, UncommittedPositionError } from '../database/freshness';
import { NoCapableServerException } from '../database/server-choice';
import { listingVariantOf, scopedFilters } from './listing-variant';
import { orderRow } from './order-row.fixture';
import { OrdersRepository, PageOutOfReachError, TooManyToSortError, type PageRead } from './orders.repository';
import { OrdersService } from './orders.service';
import type { ListOrdersQuery } from './query/list-orders-query';

/** A row with its update time as mysql2 returns one, a Date. */
const row = (id: number) => orderRow(id, { updatedAt: new Date('2026-03-09T15:30:00.000Z') });

const ADMINISTRATOR = listingVariantOf({ id: 1, role: Role.Admin });
const MEMBER = listingVariantOf({ id: 7, role: Role.User });

/** An administrator's query, as the pipe hands it over. */
const query = (overrides: Partial<ListOrdersQuery> = {}): ListOrdersQuery => ({
  page: 1,
  size: 2,
  sort: [{ field: 'createdAt', direction: 'DESC' }],
  filters: { userId: 99, status: 'REFUNDED' },
  variant: ADMINISTRATOR,
  walkScope: 'the scope a continuation is checked against (the pipe’s concern)',
  echoedParameters: [],
  ...overrides,
});

/** A member's query, as the pipe scopes it: their own orders. */
const memberQuery = (overrides: Partial<ListOrdersQuery> = {}): ListOrdersQuery =>
  query({ variant: MEMBER, filters: scopedFilters(MEMBER, {}), ...overrides });

/** A page as the repository reads it (its own tests): here, what the service builds the answer from. */
const read = (overrides: Partial<PageRead> = {}): PageRead => ({
  rows: [],
  seats: [],
  total: 0,
  more: false,
  ...overrides,
});

describe('OrdersService', () => {
  let readPage: jest.Mock<OrdersRepository['readPage']>;
  let service: OrdersService;

  beforeEach(async () => {
    readPage = jest.fn(() => Promise.resolve(read()));
    const moduleRef = await Test.createTestingModule({
      providers: [
        OrdersService,
        { provide: OrdersRepository, useValue: { readPage } },
        { provide: LocalTimeFormatter, useValue: new LocalTimeFormatter('Asia/Seoul') },
      ],
    }).compile();
    service = moduleRef.get(OrdersService);
  });

  it('asks the repository for the page by its offset, with the filters, sort, cursor and writer’s position', async () => {
    const cursor = { direction: 'after' as const, key: [1], bound: 300 };
    await service.list(query({ page: 4, cursor, writerPosition: '0-1-42' }));
    expect(readPage).toHaveBeenCalledWith({
      filters: { userId: 99, status: 'REFUNDED' },
      sort: query().sort,
      size: 2,
      offset: 6,
      cursor,
      writerPosition: '0-1-42',
    });
  });

  describe('a page that cannot be read', () => {
    it('refuses a shape no serving server can answer in time with a 422 naming what would make it answerable', async () => {
      // Routing found no server holding what the shape needs, before any statement.
      readPage.mockRejectedValue(new NoCapableServerException());
      const sort = [{ field: 'totalPrice' as const, direction: 'ASC' as const }];
      const refusal = service.list(query({ filters: {}, sort }));
      await expect(refusal).rejects.toBeInstanceOf(ProblemException);
      const { problem } = (await refusal.catch((error: unknown) => error)) as ProblemException;
      expect(problem).toMatchObject({ status: 422, type: '/problems/query-too-broad' });
      expect(problem.detail).toMatch(
        /all orders by totalPrice.*userId or consertId filter, sort by createdAt or orderId/,
      );
    });

    it('tells a member whose orders no serving server can read through a member’s index to come back, not to filter', async () => {
      readPage.mockRejectedValue(new NoCapableServerException());
      const { problem } = (await service.list(memberQuery()).catch((error: unknown) => error)) as ProblemException;
      expect(problem).toMatchObject({ status: 422, type: '/problems/query-too-broad' });
      expect(problem.detail).toMatch(/^Listing a member's orders needs an index led by that filter.*Try again once/);
      expect(problem.detail).not.toMatch(/Add a userId/);
    });

    it('refuses a shape whose count shows more orders to sort than a server sorts in time, saying how many', async () => {
      readPage.mockRejectedValue(new TooManyToSortError(5_000_000, 1_000_000));
      const sort = [{ field: 'updatedAt' as const, direction: 'ASC' as const }];
      await expect(service.list(query({ filters: { status: 'PAYMENT_COMPLETED' }, sort }))).rejects.toMatchObject({
        problem: {
          status: 422,
          type: '/problems/query-too-broad',
          detail: expect.stringMatching(
            /by updatedAt .*reads 5,000,000 orders .*at most 1,000,000.*Narrow the date range/,
          ),
        },
      });
    });

    it('refuses a page by number further from both ends than a server passes in time, saying how to reach it', async () => {
      readPage.mockRejectedValue(new PageOutOfReachError(10_000_000, 4_999_998, 2_000_000));
      const sort = [
        { field: 'totalPrice' as const, direction: 'ASC' as const },
        { field: 'orderId' as const, direction: 'ASC' as const },
      ];
      await expect(service.list(query({ filters: {}, sort, page: 2_500_000 }))).rejects.toMatchObject({
        problem: {
          status: 422,
          type: '/problems/page-out-of-reach',
          detail: expect.stringMatching(
            /Page 2,500,000 of 5,000,000 by totalPrice lies 4,999,998 orders .*at most 2,000,000.*Link.*totalPrice,desc.*narrow the filters/,
          ),
        },
      });
    });

    it('answers 400 naming Read-After-Gtid for a position no commit reached, and 409 for a lost write', async () => {
      // The router found the position ahead of the primary's own: no commit made it.
      readPage.mockRejectedValueOnce(new UncommittedPositionError());
      await expect(service.list({ ...query(), writerPosition: '0-1-999999' })).rejects.toMatchObject({
        problem: { status: 400, errors: [{ field: 'Read-After-Gtid', message: expect.stringContaining('ahead') }] },
      });
      // The router found the position written by a server whose later writes the primary does not hold.
      readPage.mockRejectedValueOnce(new LostPositionError());
      await expect(service.list({ ...query(), writerPosition: '0-2-310' })).rejects.toMatchObject({
        problem: { status: 409, type: '/problems/write-lost', errors: [{ field: 'Read-After-Gtid' }] },
      });
    });

    it('passes any other failure on as it is: the database’s are typed 503s further up', async () => {
      const outage = new Error('the database is down');
      readPage.mockRejectedValueOnce(outage);
      await expect(service.list(query())).rejects.toBe(outage);
    });
  });

  it('builds the envelope from the total, the page asked for and its size', async () => {
    readPage.mockResolvedValue(read({ rows: [row(11), row(10)], total: 9 }));
    const { page } = await service.list(query({ page: 2 }));
    expect(page).toMatchObject({
      totalPages: 5,
      totalElementCount: 9,
      currentPage: 2,
      currentElementCount: 2,
      perPageNumber: 2,
      hasPrevious: true,
      hasNextPage: true,
    });
  });

  it('maps rows in the contract’s shape, each with its seats', async () => {
    // Seats come ordered by order and seat id, as the repository's query sorts them.
    const seats = [
      { orderId: 11, seatPriceId: 1, price: 60 },
      { orderId: 11, seatPriceId: 2, price: 60.5 },
    ];
    readPage.mockResolvedValue(read({ rows: [row(11), row(10)], seats, total: 2 }));
    const { page } = await service.list(query({ size: 3 }));
    expect(JSON.stringify(page.elements[0])).toBe(
      JSON.stringify({
        orderId: 11,
        userId: 7,
        concertId: 3,
        seats: [
          { seatPriceId: 1, price: 60 },
          { seatPriceId: 2, price: 60.5 },
        ],
        totalPrice: 120.5,
        status: '결제 완료',
        createdAt: '2026-03-10T00:00:00',
        updatedAt: '2026-03-10T00:30:00',
      }),
    );
    expect(page.elements[1]).toMatchObject({ orderId: 10, seats: [] });
  });

  it('leaves userId out of a member’s elements', async () => {
    readPage.mockResolvedValue(read({ rows: [row(11)], total: 1 }));
    const { page } = await service.list(memberQuery());
    expect(Object.keys(page.elements[0])).toEqual([
      'orderId',
      'concertId',
      'seats',
      'totalPrice',
      'status',
      'createdAt',
      'updatedAt',
    ]);
  });

  it('tells where links from the page continue: after the last element and before the first, within the walk’s bound', async () => {
    readPage.mockResolvedValue(read({ rows: [row(11), row(10)], total: 9, walkBound: 500 }));
    const sort = [
      { field: 'createdAt' as const, direction: 'DESC' as const },
      { field: 'totalPrice' as const, direction: 'ASC' as const },
      { field: 'orderId' as const, direction: 'DESC' as const },
    ];
    const { continuation, walk } = await service.list(query({ sort }));
    const createdAt = Date.parse('2026-03-09T15:00:00.999Z');
    expect(continuation).toEqual({
      after: { direction: 'after', key: [createdAt, 120.5, 10], bound: 500 },
      before: { direction: 'before', key: [createdAt, 120.5, 11], bound: 500 },
    });
    // Read by number: no walk is followed.
    expect(walk).toBeUndefined();
  });

  it('says of a followed page whether its walk goes on, in the direction followed', async () => {
    readPage.mockResolvedValue(read({ rows: [row(8), row(7)], total: 40, more: true, walkBound: 300 }));
    const cursor = { direction: 'before' as const, key: [1], bound: 300 };
    await expect(service.list(query({ page: 5, cursor }))).resolves.toMatchObject({
      walk: { direction: 'before', more: true },
    });
  });

  it('has no continuation on an empty page, which no link can continue from', async () => {
    readPage.mockResolvedValue(read({ total: 3 }));
    expect((await service.list(query({ page: 9 }))).continuation).toBeUndefined();
  });

  it('says how far behind a page read from a late replica may be', async () => {
    readPage.mockResolvedValue(read({ behindSeconds: 12 }));
    await expect(service.list(query())).resolves.toMatchObject({ behindSeconds: 12 });
  });
});
