import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Role } from '../auth/role';
import { LocalTimeFormatter } from '../common/time/local-time';
import { LostPositionError, UncommittedPositionError } from '../database/freshness';
import type { ReadRouter } from '../database/read-router';
import type { ReadSession } from '../database/read-session';
import { NoCapableServerException, type ServerRequirement } from '../database/server-choice';
import { ProblemException } from '../common/problem/problem-details';
import type { OrdersRepository, ReadyPlan } from './orders.repository';
import type { SeatRow } from './statements/seat-statement';
import { listingVariantOf } from './listing-variant';
import type { OrderRow } from './model';
import { OrdersService } from './orders.service';
import type { ListOrdersQuery } from './query/list-orders-query';

const row = (id: number, userId = 7): OrderRow => ({
  id,
  userId,
  concertId: 3,
  totalPrice: 120.5,
  status: 'PAYMENT_COMPLETED',
  createdAt: '2026-03-09 15:00:00.999',
  updatedAt: new Date('2026-03-09T15:30:00.000Z'),
});

/** A plan read from the shape alone: what the repository answers for most shapes. */
const READY: ReadyPlan = { kind: 'ready' };

/** Stands for the one connection a request's statements share; the repository mock only passes it along. Its server
 * holds ten million orders, against which a deep page's walk is weighed. */
const session = {
  name: 'the request’s connection and deadline',
  catalog: { estimatedRows: () => 10_000_000 },
} as unknown as ReadSession;

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
  query({ variant: MEMBER, filters: MEMBER.scope({}), ...overrides });

describe('OrdersService', () => {
  /** What a server must hold is the repository's and the router's to tell (their own tests): here a value to pass on. */
  const required: ServerRequirement = { table: 'orders', anyIndexOf: ['idx'], sortsWholeUpTo: 0, heldBeforeRead: true };
  let repository: {
    requirementOf: jest.Mock<OrdersRepository['requirementOf']>;
    plan: jest.Mock<OrdersRepository['plan']>;
    reach: jest.Mock<OrdersRepository['reach']>;
    findPage: jest.Mock<OrdersRepository['findPage']>;
    findSeats: jest.Mock<OrdersRepository['findSeats']>;
    findSeatsAndCount: jest.Mock<OrdersRepository['findSeatsAndCount']>;
  };
  let reads: { withConnection: jest.Mock<ReadRouter['withConnection']>; pinned: jest.Mock<ReadRouter['pinned']> };
  let service: OrdersService;

  beforeEach(() => {
    repository = {
      requirementOf: jest.fn(() => required),
      // Most shapes are planned from the shape alone (QueryPlanner has its own tests); the tests of counts say otherwise.
      plan: jest.fn(() => Promise.resolve<ReadyPlan>(READY)),
      // Most pages are near their start, where OFFSET serves; the tests of deep pages say otherwise.
      reach: jest.fn(() => undefined),
      findPage: jest.fn(),
      findSeats: jest.fn(),
      findSeatsAndCount: jest.fn(),
    };
    // Routing lends a connection at once and a deadline that never passes: routing and queueing are tested on their own.
    reads = {
      withConnection: jest.fn(<T>(work: (session: ReadSession) => Promise<T>) => work(session)),
      pinned: jest.fn(),
    } as unknown as typeof reads;
    service = new OrdersService(
      repository as unknown as OrdersRepository,
      new LocalTimeFormatter('Asia/Seoul'),
      reads as unknown as ReadRouter,
    );
  });

  it('refuses a shape no serving server can answer in time with a 422 naming what would make it answerable', async () => {
    // Routing found no server holding what the shape needs, before any statement.
    reads.withConnection.mockRejectedValue(new NoCapableServerException());
    const sort = [{ field: 'totalPrice' as const, direction: 'ASC' as const }];
    const refusal = service.list(query({ filters: {}, sort }));
    await expect(refusal).rejects.toBeInstanceOf(ProblemException);
    const { problem } = (await refusal.catch((error: unknown) => error)) as ProblemException;
    expect(problem).toMatchObject({ status: 422, type: '/problems/query-too-broad' });
    expect(problem.detail).toMatch(
      /all orders by totalPrice.*userId or consertId filter, sort by createdAt or orderId/,
    );
    expect(repository.findPage).not.toHaveBeenCalled();
  });

  it('tells a member whose orders no serving server can read through a member’s index to come back, not to filter', async () => {
    // Routing found no server holding an index led by the member (the only one that bounds a member's page).
    reads.withConnection.mockRejectedValue(new NoCapableServerException());
    const sort = [{ field: 'createdAt' as const, direction: 'DESC' as const }];
    const refusal = service.list(memberQuery({ sort }));
    const { problem } = (await refusal.catch((error: unknown) => error)) as ProblemException;
    expect(problem).toMatchObject({ status: 422, type: '/problems/query-too-broad' });
    expect(problem.detail).toMatch(/^Listing a member's orders needs an index led by that filter.*Try again once/);
    expect(problem.detail).not.toMatch(/Add a userId/);
  });

  it('refuses an export of such a shape before its first batch', async () => {
    reads.pinned.mockImplementation(() => {
      throw new NoCapableServerException();
    });
    const sort = [{ field: 'updatedAt' as const, direction: 'DESC' as const }];
    const batches = service.exportBatches(
      query({ filters: { status: 'REFUNDED' }, sort }),
      new AbortController().signal,
    );
    await expect(batches.next()).rejects.toMatchObject({
      problem: { status: 422, detail: expect.stringContaining('the orders these filters select by updatedAt') },
    });
  });

  describe('an export', () => {
    const BATCH = 1000;
    /** A batch as the repository reads it: the batch and one order past it, which says that more follow. */
    const batchFrom = (firstId: number, withMore: boolean) =>
      Array.from({ length: withMore ? BATCH + 1 : 3 }, (_, index) => ({
        ...row(firstId - index),
        newestOrderId: 9_999,
      }));

    beforeEach(() => {
      // Pinned to one server, each batch on a connection of its own: routing has its own tests.
      reads.pinned.mockReturnValue({ withConnection: reads.withConnection } as unknown as ReturnType<
        ReadRouter['pinned']
      >);
      repository.findSeats.mockResolvedValue([]);
      // Three batches: two full ones, then the last three orders.
      repository.findPage
        .mockResolvedValueOnce(batchFrom(9_000, true))
        .mockResolvedValueOnce(batchFrom(8_000, true))
        .mockResolvedValueOnce(batchFrom(7_000, false));
    });

    it('reads the next batch, page then seats, while the last one is taken, one ahead and no further, each seeking past the last', async () => {
      const sort = [
        { field: 'createdAt' as const, direction: 'DESC' as const },
        { field: 'orderId' as const, direction: 'DESC' as const },
      ];
      const batches = service.exportBatches(query({ sort }), new AbortController().signal);
      const first = await batches.next();
      expect(first.value).toHaveLength(BATCH);
      // The second batch is being read already, its seats as soon as its page is in; the third is not asked for
      // until the second is taken.
      await new Promise((resolve) => setImmediate(resolve));
      expect(repository.findPage).toHaveBeenCalledTimes(2);
      expect(repository.findSeats).toHaveBeenCalledTimes(2);
      expect(repository.findSeats.mock.calls[1][0]).toHaveLength(BATCH);
      expect(repository.findPage.mock.calls[1][0].cursor).toEqual({
        direction: 'after',
        key: [Date.parse('2026-03-09T15:00:00.999Z'), 9_000 - (BATCH - 1)],
        bound: 9_999,
      });
      await batches.next();
      expect(repository.findPage).toHaveBeenCalledTimes(3);
      expect((await batches.next()).value).toHaveLength(3);
      await expect(batches.next()).resolves.toEqual({ done: true, value: undefined });
      expect(repository.findPage).toHaveBeenCalledTimes(3);
    });

    it('starts over once on another server when its first batch’s server fails before anything is sent', async () => {
      const lost = Object.assign(new Error('Connection lost: The server closed the connection.'), {
        code: 'PROTOCOL_CONNECTION_LOST',
      });
      // The first batch's seats fail as they would on a server killed after its page was read.
      repository.findSeats.mockReset();
      repository.findSeats.mockRejectedValueOnce(lost).mockResolvedValue([]);
      // Routing finds another server that can serve the export (its choice is tested on its own).
      const moveAfter = jest.fn((_error: unknown) => true);
      reads.pinned.mockReturnValue({ withConnection: reads.withConnection, moveAfter } as unknown as ReturnType<
        ReadRouter['pinned']
      >);
      const batches = service.exportBatches(query(), new AbortController().signal);
      const first = await batches.next();
      expect(moveAfter).toHaveBeenCalledWith(lost);
      expect(first.value).toHaveLength(BATCH);
      // Read again from the start there: no batch mixes what two servers hold.
      expect(repository.findPage.mock.calls[1][0].cursor).toBeUndefined();
      await batches.return(undefined);
    });

    it('fails as before when no other server can serve its first batch', async () => {
      const lost = Object.assign(new Error('Connection lost'), { code: 'PROTOCOL_CONNECTION_LOST' });
      repository.findSeats.mockReset();
      repository.findSeats.mockRejectedValue(lost);
      // Routing finds no other server: the failure is the answer.
      reads.pinned.mockReturnValue({
        withConnection: reads.withConnection,
        moveAfter: () => false,
      } as unknown as ReturnType<ReadRouter['pinned']>);
      await expect(service.exportBatches(query(), new AbortController().signal).next()).rejects.toBe(lost);
    });

    it('reads nothing more once the consumer stops, and returns only once the batch read ahead has ended', async () => {
      const cancelled = new AbortController();
      let failAhead: (error: Error) => void = () => undefined;
      repository.findPage.mockReset();
      repository.findPage
        .mockResolvedValueOnce(batchFrom(9_000, true))
        // The batch read ahead is still running when the consumer stops; it then fails as a cancelled statement does.
        .mockReturnValueOnce(new Promise((_, reject) => (failAhead = reject)));
      const batches = service.exportBatches(query(), cancelled.signal);
      await batches.next();
      cancelled.abort();
      let returned = false;
      const stopping = batches.return(undefined).then((result) => {
        returned = true;
        return result;
      });
      await new Promise((resolve) => setImmediate(resolve));
      expect(returned).toBe(false);
      failAhead(new Error('Query execution was interrupted'));
      await expect(stopping).resolves.toEqual({ done: true, value: undefined });
      expect(repository.findPage).toHaveBeenCalledTimes(2);
    });
  });

  describe('a shape whose count shows more orders to sort than a server sorts in time', () => {
    const year = { status: 'PAYMENT_COMPLETED' as const, createdFrom: Date.UTC(2025, 0, 1) };
    const byUpdate = [{ field: 'updatedAt' as const, direction: 'ASC' as const }];

    beforeEach(() => {
      // The plan depends on how many match; the count says 5M orders of these dates would be sorted for each page.
      repository.plan.mockResolvedValue({ kind: 'refused', sortedWhole: 5_000_000, maxSortedWhole: 1_000_000 });
    });

    it('refuses the page with a 422 saying how many and how to narrow it, after the count and before the page', async () => {
      const refusal = service.list(query({ filters: year, sort: byUpdate }));
      await expect(refusal).rejects.toMatchObject({
        problem: {
          status: 422,
          type: '/problems/query-too-broad',
          detail: expect.stringMatching(
            /by updatedAt .*reads 5,000,000 orders .*at most 1,000,000.*Narrow the date range/,
          ),
        },
      });
      expect(repository.requirementOf).toHaveBeenCalledWith(year, byUpdate);
      expect(repository.plan).toHaveBeenLastCalledWith(
        { filters: year, sort: byUpdate, limit: 2, offset: 0, cursor: undefined },
        session,
        { newestOrderId: undefined },
      );
      expect(repository.findPage).not.toHaveBeenCalled();
    });

    it('refuses the export before its first batch is read', async () => {
      reads.pinned.mockReturnValue({
        withConnection: <T>(work: (session: ReadSession) => Promise<T>) => work(session),
        // A refused plan is no failure of a server: the reads stay where they are.
        moveAfter: () => false,
        // Never asked: the export is refused before its first batch.
        position: () => Promise.resolve(undefined),
      });
      const batches = service.exportBatches(query({ filters: year, sort: byUpdate }), new AbortController().signal);
      await expect(batches.next()).rejects.toMatchObject({ problem: { status: 422 } });
      expect(repository.findPage).not.toHaveBeenCalled();
    });
  });

  describe('a page by number far from its start (docs/API.md §22)', () => {
    const byPrice = [
      { field: 'totalPrice' as const, direction: 'ASC' as const },
      { field: 'orderId' as const, direction: 'ASC' as const },
    ];
    /** The page as the repository reads it from the nearer end: the last two of 10,001, in reverse. */
    const fromTheEnd = {
      total: 10_001,
      read: { filters: {}, sort: byPrice, limit: 1, offset: 0, cursor: undefined },
      reversed: true,
      byDay: false,
    };
    /** A plan walking a replica's price index: what it passes is bounded by the rate measured there. */
    const walking: ReadyPlan = {
      kind: 'ready',
      read: { indexes: ['idx_replica_orders_total_price'], rule: 'index-order' },
    };

    it('reads it as the repository reached it, puts a reversed page back in order, and counts no more', async () => {
      repository.reach.mockResolvedValue(fromTheEnd);
      repository.plan.mockResolvedValue(walking);
      repository.findPage.mockResolvedValue([row(8), row(9)]);
      repository.findSeats.mockResolvedValue([]);
      const { page } = await service.list(query({ filters: {}, sort: byPrice, page: 5001 }));
      expect(repository.findPage).toHaveBeenCalledWith(fromTheEnd.read, walking, session);
      expect(page.elements.map((element) => element.orderId)).toEqual([9, 8]);
      expect(page).toMatchObject({ totalElementCount: 10_001, totalPages: 5001, currentPage: 5001, lastPage: true });
      expect(repository.findSeatsAndCount).not.toHaveBeenCalled();
    });

    it('answers an empty page past the end from the count alone', async () => {
      repository.reach.mockResolvedValue({ total: 10_001, reversed: false, byDay: true });
      const { page } = await service.list(query({ filters: {}, page: 9000 }));
      expect(page).toMatchObject({ totalElementCount: 10_001, currentPage: 9000, elements: [] });
      expect(repository.findPage).not.toHaveBeenCalled();
    });

    it('refuses one further from both ends than the server passes in time, saying how to reach it, before its page', async () => {
      // The middle of ten million orders by price: five million from either end.
      repository.reach.mockResolvedValue({
        ...fromTheEnd,
        total: 10_000_000,
        read: { ...fromTheEnd.read, offset: 4_999_998 },
      });
      repository.plan.mockResolvedValue(walking);
      const refusal = service.list(query({ filters: {}, sort: byPrice, page: 2_500_000 }));
      await expect(refusal).rejects.toMatchObject({
        problem: {
          status: 422,
          type: '/problems/page-out-of-reach',
          detail: expect.stringMatching(
            /Page 2,500,000 of 5,000,000 by totalPrice lies 4,999,998 orders .*Link.*totalPrice,desc.*narrow the filters/,
          ),
        },
      });
      expect(repository.findPage).not.toHaveBeenCalled();
    });

    it('never refuses a page reached by its day: a day’s orders bound what it passes', async () => {
      const sale = { ...fromTheEnd.read, offset: 4_999_998 };
      repository.reach.mockResolvedValue({ total: 10_000_000, read: sale, byDay: true, reversed: false });
      repository.plan.mockResolvedValue(walking);
      repository.findPage.mockResolvedValue([row(8), row(9)]);
      repository.findSeats.mockResolvedValue([]);
      await expect(service.list(query({ filters: {}, page: 2_500_000 }))).resolves.toMatchObject({
        page: { totalElementCount: 10_000_000 },
      });
    });
  });

  it('plans a page once, and routes its page and its export by what its shape requires of a server', async () => {
    repository.findPage.mockResolvedValue([]);
    repository.findSeats.mockResolvedValue([]);
    await service.list(query());
    expect(repository.plan).toHaveBeenCalledTimes(1);
    expect(reads.withConnection).toHaveBeenCalledWith(expect.any(Function), { required, writerPosition: undefined });
    reads.pinned.mockReturnValue({ withConnection: reads.withConnection } as unknown as ReturnType<
      ReadRouter['pinned']
    >);
    for await (const batch of service.exportBatches(query(), new AbortController().signal)) expect(batch).toEqual([]);
    expect(reads.pinned).toHaveBeenCalledWith({ required, writerPosition: undefined });
  });

  it('passes a writer’s position on, and answers 400 naming its header when the servers refuse it', async () => {
    repository.findPage.mockResolvedValue([]);
    repository.findSeats.mockResolvedValue([]);
    await service.list({ ...query(), writerPosition: '0-1-42' });
    expect(reads.withConnection).toHaveBeenLastCalledWith(expect.any(Function), { required, writerPosition: '0-1-42' });
    // The router found the position ahead of the primary's own: no commit made it.
    reads.withConnection.mockRejectedValueOnce(new UncommittedPositionError());
    await expect(service.list({ ...query(), writerPosition: '0-1-999999' })).rejects.toMatchObject({
      problem: { status: 400, errors: [{ field: 'Read-After-Gtid', message: expect.stringContaining('ahead') }] },
    });
    // The router found the position written by a server whose later writes the primary does not hold.
    reads.withConnection.mockRejectedValueOnce(new LostPositionError());
    await expect(service.list({ ...query(), writerPosition: '0-2-310' })).rejects.toMatchObject({
      problem: { status: 409, type: '/problems/write-lost', errors: [{ field: 'Read-After-Gtid' }] },
    });
  });

  it('reads a member’s page and count from the orders the variant scoped: their own', async () => {
    // One full page, so the service must ask for the total.
    repository.findPage.mockResolvedValue([row(11), row(10)]);
    repository.findSeatsAndCount.mockResolvedValue({ seats: [], total: 5 });
    await service.list(memberQuery());
    expect(repository.findPage).toHaveBeenCalledWith(
      { filters: { userId: 7 }, sort: query().sort, limit: 2, offset: 0, cursor: undefined },
      READY,
      session,
    );
    // Both last on the connection, in one round trip.
    expect(repository.findSeatsAndCount).toHaveBeenCalledWith([11, 10], { filters: { userId: 7 } }, session);
  });

  it('passes an administrator’s filters on untouched, with the offset of the page', async () => {
    // An empty page past the end: only COUNT(*) can tell the total.
    repository.findPage.mockResolvedValue([]);
    repository.findSeatsAndCount.mockResolvedValue({ seats: [], total: 3 });
    const { page } = await service.list(query({ page: 4 }));
    expect(repository.findPage).toHaveBeenCalledWith(
      { filters: { userId: 99, status: 'REFUNDED' }, sort: query().sort, limit: 2, offset: 6, cursor: undefined },
      READY,
      session,
    );
    expect(page).toMatchObject({ totalElementCount: 3, totalPages: 2, currentPage: 4, elements: [] });
  });

  it('skips COUNT(*) when a partly filled page already tells the total', async () => {
    // One row on page 3 of size 2: it is the last page, and the total is 4 + 1.
    repository.findPage.mockResolvedValue([row(1)]);
    repository.findSeats.mockResolvedValue([]);
    const { page } = await service.list(query({ page: 3 }));
    expect(repository.findSeatsAndCount).not.toHaveBeenCalled();
    expect(page.totalElementCount).toBe(5);
  });

  it('skips COUNT(*) when the first page is empty', async () => {
    repository.findPage.mockResolvedValue([]);
    repository.findSeats.mockResolvedValue([]);
    const { page } = await service.list(memberQuery());
    expect(repository.findSeatsAndCount).not.toHaveBeenCalled();
    expect(page.totalElementCount).toBe(0);
  });

  it('answers the count a plan was decided by as the total, and counts no more', async () => {
    // 41 of 1,000 orders match: what the planner weighed, and the total the envelope must carry.
    const plan: ReadyPlan = { kind: 'ready', sizes: { matching: 41, table: 1000 } };
    repository.plan.mockResolvedValue(plan);
    repository.findPage.mockResolvedValue([row(11), row(10)]);
    repository.findSeats.mockResolvedValue([]);
    const filters = { status: 'REFUNDED' as const };
    const sort = [{ field: 'updatedAt' as const, direction: 'DESC' as const }];
    const { page } = await service.list(query({ filters, sort }));
    expect(repository.findPage).toHaveBeenCalledWith(
      { filters, sort, limit: 2, offset: 0, cursor: undefined },
      plan,
      session,
    );
    expect(repository.findSeatsAndCount).not.toHaveBeenCalled();
    expect(page).toMatchObject({ totalElementCount: 41, totalPages: 21 });
  });

  it('tells where links from the page continue: after the last element and before the first, within the bound read with them', async () => {
    // The page statement carries the newest id in the same snapshot as the rows.
    repository.findPage.mockResolvedValue([
      { ...row(11), newestOrderId: 500 },
      { ...row(10), newestOrderId: 500 },
    ]);
    repository.findSeatsAndCount.mockResolvedValue({ seats: [], total: 9 });
    const sort = [
      { field: 'createdAt' as const, direction: 'DESC' as const },
      { field: 'totalPrice' as const, direction: 'ASC' as const },
      { field: 'orderId' as const, direction: 'DESC' as const },
    ];
    const { continuation } = await service.list(query({ sort }));
    const createdAt = Date.parse('2026-03-09T15:00:00.999Z');
    expect(continuation).toEqual({
      after: { direction: 'after', key: [createdAt, 120.5, 10], bound: 500 },
      before: { direction: 'before', key: [createdAt, 120.5, 11], bound: 500 },
    });
  });

  it('reads a followed page from its cursor, one order past it, and counts the walk’s orders', async () => {
    // Three rows for a page of two: the third, past the page, says the walk goes on and is not shown.
    repository.findPage.mockResolvedValue([row(8), row(7), row(6)]);
    repository.findSeatsAndCount.mockResolvedValue({ seats: [], total: 40 });
    const cursor = { direction: 'after' as const, key: [Date.parse('2026-03-09T15:00:00Z'), 9], bound: 300 };
    const listed = await service.list(query({ page: 5, cursor }));
    expect(repository.findPage).toHaveBeenCalledWith(
      { filters: query().filters, sort: query().sort, limit: 3, offset: 8, cursor },
      READY,
      session,
    );
    expect(repository.findSeatsAndCount).toHaveBeenCalledWith(
      [8, 7],
      { filters: query().filters, newestOrderId: 300 },
      session,
    );
    expect(listed.page).toMatchObject({ currentPage: 5, totalElementCount: 40, currentElementCount: 2 });
    // The sort of these queries is createdAt alone, and every row here was created at the same time.
    const createdAt = Date.parse('2026-03-09T15:00:00.999Z');
    expect(listed.continuation).toEqual({
      after: { direction: 'after', key: [createdAt], bound: 300 },
      before: { direction: 'before', key: [createdAt], bound: 300 },
    });
    expect(listed.walk).toEqual({ direction: 'after', more: true });
  });

  it('drops the order before a page followed backwards, and says when the walk has nothing further back', async () => {
    // Read in reverse and put back in sort order by the statement: the first row is the one past the page.
    repository.findPage.mockResolvedValue([row(9), row(8), row(7)]);
    repository.findSeatsAndCount.mockResolvedValue({ seats: [], total: 40 });
    const cursor = { direction: 'before' as const, key: [Date.parse('2026-03-09T15:00:00Z'), 6], bound: 300 };
    const back = await service.list(query({ page: 4, cursor }));
    expect(back.page.elements.map((element) => element.orderId)).toEqual([8, 7]);
    expect(back.walk).toEqual({ direction: 'before', more: true });
    // Exactly a page: nothing before it in the walk.
    repository.findPage.mockResolvedValue([row(2), row(1)]);
    expect((await service.list(query({ page: 2, cursor }))).walk).toEqual({
      direction: 'before',
      more: false,
    });
  });

  it('has no continuation on an empty page, which no link can continue from', async () => {
    repository.findPage.mockResolvedValue([]);
    repository.findSeatsAndCount.mockResolvedValue({ seats: [], total: 3 });
    expect((await service.list(query({ page: 9 }))).continuation).toBeUndefined();
  });

  it('fetches the seats of the whole page in one call and maps rows in the contract’s shape', async () => {
    // A page by offset that is partly filled tells its total: only its seats are read.
    repository.findPage.mockResolvedValue([row(11), row(10)]);
    // Seats come ordered by order and seat id, as the repository's query sorts them.
    const seats: SeatRow[] = [
      { orderId: 11, seatPriceId: 1, price: 60 },
      { orderId: 11, seatPriceId: 2, price: 60.5 },
    ];
    repository.findSeats.mockResolvedValue(seats);
    const { page } = await service.list(query({ size: 3 }));
    expect(repository.findSeats).toHaveBeenCalledTimes(1);
    // The seats are the request's last statement on its connection: a snapshot held ends in their round trip.
    expect(repository.findSeats).toHaveBeenCalledWith([11, 10], session, { last: true });
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
    repository.findPage.mockResolvedValue([row(11)]);
    repository.findSeats.mockResolvedValue([]);
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
});
