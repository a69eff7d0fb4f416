import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { ReadRouter, type PinnedReads, type UnitOfWork } from '../database/read-router';
import type { ReadSession, Statement, StatementKind } from '../database/read-session';
import type { ServerRequirement } from '../database/server-choice';
import type { OrderRow } from './model';
import { orderRow } from './order-row.fixture';
import { PageOutOfReachError, OrdersRepository, TooManyToSortError, type PageQuery } from './orders.repository';
import { PagePlans, type PageReach, type ReadyPlan } from './page-plans';
import { CountStatements } from './statements/count-statement';
import type { PageRequest } from './statements/page-statement';
import { PageStatements } from './statements/page-statement';
import { SeatStatements, type SeatRow } from './statements/seat-statement';

/** A row as the page statement returns it; `newestOrderId` as MySQL returns `MAX(id)`, a string. */
const row = (id: number, newestOrderId?: string) => orderRow(id, newestOrderId === undefined ? {} : { newestOrderId });

const byCreation = [{ field: 'createdAt' as const, direction: 'DESC' as const }];
const byPrice = [
  { field: 'totalPrice' as const, direction: 'ASC' as const },
  { field: 'orderId' as const, direction: 'ASC' as const },
];

/** An administrator's page of two, by number, as the service asks for it. */
const pageQuery = (overrides: Partial<PageQuery> = {}): PageQuery => ({
  filters: { status: 'REFUNDED' },
  sort: byCreation,
  size: 2,
  offset: 0,
  ...overrides,
});

/** A plan read from the shape alone: what the planner answers for most shapes (QueryPlanner has its own tests). */
const READY: ReadyPlan = { kind: 'ready' };

/** What a server must hold is the planner's and the router's to tell (their own tests): here a value to pass on. */
const required: ServerRequirement = { table: 'orders', anyIndexOf: ['idx'], sortsWholeUpTo: 0, heldBeforeRead: true };

/** One round trip as the session was asked to send it. */
interface Sent {
  kind: StatementKind | undefined;
  statements: readonly Statement[];
  last: boolean;
}

describe('OrdersRepository', () => {
  let sent: Sent[];
  /** What the server answers each kind of round trip with; a test sets the rows its case needs. */
  let answers: { page: OrderRow[]; count: number; seats: SeatRow[] };
  let session: ReadSession;
  let plans: { requirementOf: jest.Mock<PagePlans['requirementOf']>; plan: jest.Mock; reach: jest.Mock };
  let reads: { unitOfWork: jest.Mock<ReadRouter['unitOfWork']>; pinned: jest.Mock<ReadRouter['pinned']> };
  let repository: OrdersRepository;
  let counted: jest.Mock<CountStatements['statement']>;
  let seated: jest.Mock<SeatStatements['statement']>;

  beforeEach(async () => {
    sent = [];
    answers = { page: [], count: 0, seats: [] };
    // The unit of work's connection: it answers each statement as a server would, by its kind, and records the round
    // trips; its server holds ten million orders, against which a deep page's walk is weighed.
    session = {
      behindSeconds: undefined,
      catalog: { estimatedRows: () => 10_000_000 },
      read: jest.fn((kind: StatementKind, statements: readonly Statement[], { last = false } = {}) => {
        sent.push({ kind, statements, last });
        const results = statements.map(([sql]) =>
          sql === 'page' ? answers.page : sql === 'count' ? [{ total: answers.count }] : answers.seats,
        );
        return Promise.resolve(results);
      }),
    } as unknown as ReadSession;
    plans = {
      requirementOf: jest.fn(() => required),
      plan: jest.fn(() => Promise.resolve(READY)),
      // Most pages are near their start, where OFFSET serves; the tests of deep pages say otherwise.
      reach: jest.fn(() => undefined),
    };
    // Routing lends its connection at once: routing, freshness and retries are the router's own tests.
    reads = {
      unitOfWork: jest.fn(<T>(work: UnitOfWork<T>) => work(session)),
      pinned: jest.fn((): PinnedReads => ({
        batch: <T>(work: UnitOfWork<T>) => work(session),
        moveAfter: () => false,
        position: () => Promise.resolve(undefined),
      })),
    };
    counted = jest.fn((): [string, unknown[]] => ['count', []]);
    seated = jest.fn((): [string, unknown[]] => ['seats', []]);
    const moduleRef = await Test.createTestingModule({
      providers: [
        OrdersRepository,
        { provide: ReadRouter, useValue: reads },
        { provide: PagePlans, useValue: plans },
        // Each statement is named by what it reads, its SQL being the builders' own tests (and the catalogue's).
        { provide: PageStatements, useValue: { statement: jest.fn((): Statement => ['page', []]) } },
        { provide: CountStatements, useValue: { statement: counted } },
        { provide: SeatStatements, useValue: { statement: seated } },
      ],
    }).compile();
    repository = moduleRef.get(OrdersRepository);
  });

  describe('a page', () => {
    it('reads a full page, then its count and seats as the last round trip on its connection', async () => {
      answers.page = [row(11, '500'), row(10, '500')];
      answers.count = 9;
      const read = await repository.readPage(pageQuery());
      expect(sent.map(({ kind, last }) => [kind, last])).toEqual([
        ['page', false],
        ['count+seats', true],
      ]);
      expect(read).toMatchObject({ total: 9, more: false, walkBound: 500 });
      expect(read.rows.map(({ id }) => id)).toEqual([11, 10]);
      expect(reads.unitOfWork).toHaveBeenCalledWith(expect.any(Function), { required, writerPosition: undefined });
    });

    it('reads the page the service asked for, planned once, with the route and writer’s position it needs', async () => {
      await repository.readPage(pageQuery({ offset: 6, writerPosition: '0-1-42' }));
      const request: PageRequest = { filters: { status: 'REFUNDED' }, sort: byCreation, limit: 2, offset: 6 };
      expect(plans.plan).toHaveBeenCalledTimes(1);
      expect(plans.plan).toHaveBeenCalledWith({ ...request, cursor: undefined }, session, {
        newestOrderId: undefined,
        sizes: undefined,
      });
      expect(plans.requirementOf).toHaveBeenCalledWith(request.filters, byCreation);
      expect(reads.unitOfWork).toHaveBeenCalledWith(expect.any(Function), { required, writerPosition: '0-1-42' });
    });

    it('counts an empty page past the end, and reads no seats for it', async () => {
      answers.count = 3;
      const read = await repository.readPage(pageQuery({ offset: 6 }));
      expect(sent.map(({ kind }) => kind)).toEqual(['page', 'count']);
      expect(read).toMatchObject({ total: 3, rows: [], seats: [] });
      expect(read.walkBound).toBeUndefined();
    });

    it('skips COUNT(*) when a partly filled page tells the total, and reads its seats in one IN (...)', async () => {
      // One row on page 3 of size 2: it is the last page, and the total is 4 + 1.
      answers.page = [row(1)];
      answers.seats = [{ orderId: 1, seatPriceId: 5, price: 60 }];
      const read = await repository.readPage(pageQuery({ offset: 4 }));
      expect(sent.map(({ kind, last }) => [kind, last])).toEqual([
        ['page', false],
        ['seats', true],
      ]);
      expect(read).toMatchObject({ total: 5, seats: answers.seats });
    });

    it('reads nothing more when the first page is empty: nothing matches', async () => {
      const read = await repository.readPage(pageQuery());
      expect(sent.map(({ kind }) => kind)).toEqual(['page']);
      expect(read.total).toBe(0);
    });

    it('answers the count a plan was decided by as the total, and counts no more', async () => {
      // 41 of 1,000 orders match: what the planner weighed, and the total the envelope must carry.
      plans.plan.mockImplementation(() => Promise.resolve({ kind: 'ready', sizes: { matching: 41, table: 1000 } }));
      answers.page = [row(11), row(10)];
      await expect(repository.readPage(pageQuery())).resolves.toMatchObject({ total: 41 });
      expect(sent.map(({ kind }) => kind)).toEqual(['page', 'seats']);
    });

    it('reads a followed page one order past it, and counts the orders of its walk', async () => {
      // Three rows for a page of two: the third, past the page, says the walk goes on and is not shown.
      answers.page = [row(8), row(7), row(6)];
      answers.count = 40;
      const cursor = { direction: 'after' as const, key: [Date.parse('2026-03-09T15:00:00Z'), 9], bound: 300 };
      const read = await repository.readPage(pageQuery({ offset: 8, cursor }));
      expect(plans.plan.mock.calls[0][0]).toMatchObject({ limit: 3, cursor });
      expect(plans.plan.mock.calls[0][2]).toEqual({ newestOrderId: 300, sizes: undefined });
      expect(read).toMatchObject({ total: 40, more: true, walkBound: 300 });
      expect(counted).toHaveBeenCalledWith({ status: 'REFUNDED' }, { withTable: false, newestOrderId: 300 });
      // The seats of the page's orders only, not of the one past it.
      expect(seated).toHaveBeenCalledWith([8, 7]);
      expect(read.rows.map(({ id }) => id)).toEqual([8, 7]);
    });

    it('drops the order before a page followed backwards, and says when the walk has nothing further back', async () => {
      // Read in reverse and put back in sort order by the statement: the first row is the one past the page.
      answers.page = [row(9), row(8), row(7)];
      const cursor = { direction: 'before' as const, key: [Date.parse('2026-03-09T15:00:00Z'), 6], bound: 300 };
      const back = await repository.readPage(pageQuery({ offset: 6, cursor }));
      expect(back.rows.map(({ id }) => id)).toEqual([8, 7]);
      expect(back.more).toBe(true);
      answers.page = [row(2), row(1)];
      await expect(repository.readPage(pageQuery({ offset: 2, cursor }))).resolves.toMatchObject({ more: false });
    });

    it('refuses a plan that sorts more orders whole than the server sorts in time, after the count and before the page', async () => {
      plans.plan.mockImplementation(() =>
        Promise.resolve({ kind: 'refused', sortedWhole: 5_000_000, maxSortedWhole: 1_000_000 }),
      );
      const refusal = repository.readPage(pageQuery({ sort: byPrice }));
      await expect(refusal).rejects.toBeInstanceOf(TooManyToSortError);
      await expect(refusal).rejects.toMatchObject({ sortedWhole: 5_000_000, maxSortedWhole: 1_000_000 });
      expect(sent).toEqual([]);
    });
  });

  describe('a page by number far from its start (docs/API.md §22)', () => {
    /** The page as the planner reached it from the nearer end: the last two of 10,001, in reverse. */
    const fromTheEnd: PageReach = {
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

    it('reads it as the planner reached it, puts a reversed page back in order, and counts no more', async () => {
      plans.reach.mockImplementation(() => Promise.resolve(fromTheEnd));
      plans.plan.mockImplementation(() => Promise.resolve(walking));
      answers.page = [row(8), row(9)];
      const read = await repository.readPage(pageQuery({ filters: {}, sort: byPrice, offset: 10_000 }));
      expect(plans.plan).toHaveBeenCalledWith(fromTheEnd.read, session, { newestOrderId: undefined, sizes: undefined });
      expect(read.rows.map(({ id }) => id)).toEqual([9, 8]);
      expect(read.total).toBe(10_001);
      expect(sent.map(({ kind }) => kind)).toEqual(['page', 'seats']);
    });

    it('answers an empty page past the end from the count alone', async () => {
      plans.reach.mockImplementation(() => Promise.resolve({ total: 10_001, reversed: false, byDay: true }));
      const read = await repository.readPage(pageQuery({ filters: {}, offset: 20_000 }));
      expect(read).toMatchObject({ total: 10_001, rows: [] });
      expect(sent).toEqual([]);
    });

    it('refuses one further from both ends than the server passes in time, before its page', async () => {
      // The middle of ten million orders by price: five million from either end.
      plans.reach.mockImplementation(() =>
        Promise.resolve({ ...fromTheEnd, total: 10_000_000, read: { ...fromTheEnd.read, offset: 4_999_998 } }),
      );
      plans.plan.mockImplementation(() => Promise.resolve(walking));
      const refusal = repository.readPage(pageQuery({ filters: {}, sort: byPrice, offset: 4_999_998 }));
      await expect(refusal).rejects.toBeInstanceOf(PageOutOfReachError);
      await expect(refusal).rejects.toMatchObject({ total: 10_000_000, passed: 4_999_998 });
      expect(sent).toEqual([]);
    });

    it('never refuses a page reached by its day: a day’s orders bound what it passes', async () => {
      const sale = { ...fromTheEnd.read!, offset: 4_999_998 };
      plans.reach.mockImplementation(() =>
        Promise.resolve({ total: 10_000_000, read: sale, byDay: true, reversed: false }),
      );
      plans.plan.mockImplementation(() => Promise.resolve(walking));
      answers.page = [row(8), row(9)];
      await expect(repository.readPage(pageQuery({ filters: {}, offset: 4_999_998 }))).resolves.toMatchObject({
        total: 10_000_000,
      });
    });
  });

  describe('an export’s batch', () => {
    it('reads one order past the batch, as the last statement on its connection, and keeps the counts of its plan', async () => {
      const sizes = { matching: 2500, table: 10_000 };
      plans.plan.mockImplementation(() => Promise.resolve({ kind: 'ready', sizes }));
      answers.page = [row(3, '900'), row(2, '900'), row(1, '900')];
      const exported = repository.exportReads({}, byCreation);
      expect(reads.pinned).toHaveBeenCalledWith({ required, writerPosition: undefined });
      const request = { filters: {}, sort: byCreation, limit: 2, offset: 0 };
      const batch = await repository.readBatch(exported, request, undefined, new AbortController().signal);
      expect(plans.plan.mock.calls[0][0]).toMatchObject({ limit: 3 });
      expect(sent).toEqual([{ kind: 'page', statements: [['page', []]], last: true }]);
      expect(batch).toMatchObject({ more: true, walkBound: 900, sizes });
      expect(batch.rows).toHaveLength(2);
    });

    it('reads the seats of a batch on a connection of its own, and none for an empty batch', async () => {
      const exported = repository.exportReads({}, byCreation);
      await expect(repository.readSeats(exported, [], new AbortController().signal)).resolves.toEqual([]);
      expect(sent).toEqual([]);
      answers.seats = [{ orderId: 4, seatPriceId: 1, price: 10 }];
      await expect(repository.readSeats(exported, [4], new AbortController().signal)).resolves.toEqual(answers.seats);
      expect(sent.map(({ kind }) => kind)).toEqual(['seats']);
    });
  });
});
