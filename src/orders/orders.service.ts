import { Injectable } from '@nestjs/common';
import { LocalTimeFormatter } from '../common/time/local-time';
import { InvalidParametersException } from '../common/problem/invalid-parameters.exception';
import { READ_AFTER_GTID_HEADER } from '../common/read-after-gtid';
import { LostPositionError, MalformedPositionError, UncommittedPositionError } from '../database/freshness';
import { ReadRouter, type PinnedReads } from '../database/read-router';
import { NoCapableServerException } from '../database/server-choice';
import { ProblemException, problemOf } from '../common/problem/problem-details';
import type { AdminOrderDto, OrderElement, SeatDto, UserOrderDto } from './dto/order.dto';
import type { ListingVariant } from './listing-variant';
import { OrdersRepository, type ReadyPlan, type RefusedPlan } from './orders.repository';
import type { PageRequest } from './statements/page-statement';
import type { SeatRow } from './statements/seat-statement';
import { sortValuesOf } from './statements/statement-parts';
import { buildPage, type Page } from './paging/page';
import type { ListOrdersQuery } from './query/list-orders-query';
import { tooBroadDetail, tooManyToSortDetail } from './too-broad';
import { mostPassed } from './skip-limits';
import type { MatchSizes } from './query-plan';
import type { OrderFilters, OrderRow, KeysetCursor, CursorDirection, SortKey } from './model';
import type { WalkProgress } from './paging/link-header';

type OrdersPage = Page<UserOrderDto> | Page<AdminOrderDto>;

/** Orders an export reads at a time: round trips stay a small share, a batch a few hundred kilobytes. */
export const EXPORT_BATCH_SIZE = 1000;

/** An export's page of orders, the cursor it was read with (none for the first), and how far behind it may be. */
interface ExportPage {
  rows: OrderRow[];
  more: boolean;
  cursor: KeysetCursor | undefined;
  behindSeconds: number | undefined;
}

interface BatchReads {
  page: Promise<ExportPage>;
  seats: Promise<SeatRow[]>;
}

export interface ListedPage {
  page: OrdersPage;
  /** Where `next` continues (after the last element) and `prev` (before the first); none on an empty page. */
  continuation?: Record<CursorDirection, KeysetCursor>;
  /** On a followed page: whether its walk has orders past it, in the direction it was followed. */
  walk?: WalkProgress;
  /** Read from a replica behind past DB_REPLICA_MAX_LAG_S, at most this many seconds behind. */
  behindSeconds?: number;
}

/** A page by offset neither empty nor full is the last, and tells the total, as an empty first page does. */
function totalOfPage(rowCount: number, offset: number, size: number): number | undefined {
  if (rowCount > 0 && rowCount < size) return offset + rowCount;
  return rowCount === 0 && offset === 0 ? 0 : undefined;
}

function groupSeats(seats: SeatRow[]): Map<number, SeatDto[]> {
  const byOrder = new Map<number, SeatDto[]>();
  for (const { orderId, seatPriceId, price } of seats) {
    const list = byOrder.get(orderId) ?? [];
    list.push({ seatPriceId, price });
    byOrder.set(orderId, list);
  }
  return byOrder;
}

/** A shape no serving server answers within bounds is refused before any statement, saying what would. */
function refusalOf(error: unknown, filters: OrderFilters, sort: SortKey[]): unknown {
  if (error instanceof MalformedPositionError || error instanceof UncommittedPositionError) {
    // A position of another kind of server, or one no commit has reached, is the client's mistake.
    return new InvalidParametersException([
      { field: READ_AFTER_GTID_HEADER, message: `${READ_AFTER_GTID_HEADER} is ${error.message}` },
    ]);
  }
  if (error instanceof LostPositionError) {
    const errors = [{ field: READ_AFTER_GTID_HEADER, message: `${READ_AFTER_GTID_HEADER} names ${error.message}` }];
    return new ProblemException(problemOf('writeLost', { errors }), { cause: error });
  }
  return error instanceof NoCapableServerException
    ? new ProblemException(problemOf('queryTooBroad', { detail: tooBroadDetail(filters, sort) }), { cause: error })
    : error;
}

/** A plan that would sort more orders whole than the server sorts in time is refused before its page is read. */
function readyOrRefused(plan: ReadyPlan | RefusedPlan, sort: SortKey[]): ReadyPlan {
  if (plan.kind === 'ready') return plan;
  throw new ProblemException(
    problemOf('queryTooBroad', { detail: tooManyToSortDetail(sort, plan.sortedWhole, plan.maxSortedWhole) }),
  );
}

/** A page by number too far from both ends to pass in time: how far, the most, and the ways to its orders. */
function outOfReach(query: ListOrdersQuery, total: number, passed: number, most: number): ProblemException {
  const count = (value: number) => value.toLocaleString('en-US');
  const { field, direction } = query.sort[0];
  const opposite = direction === 'ASC' ? 'desc' : 'asc';
  const lastPage = Math.ceil(total / query.size);
  return new ProblemException(
    problemOf('pageOutOfReach', {
      detail:
        `Page ${count(query.page)} of ${count(lastPage)} by ${field} lies ${count(passed)} orders from the nearer end ` +
        `of this listing, more than a server passes in time (at most ${count(most)}). Follow the Link header's next ` +
        `or prev links from a nearer page, sort by ${field},${opposite} so that these orders come near the start, or ` +
        'narrow the filters (a date range, a status, a userId or consertId).',
    }),
  );
}

@Injectable()
export class OrdersService {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly time: LocalTimeFormatter,
    private readonly reads: ReadRouter,
  ) {}

  /** A page of the orders the query's variant may see (its filters, scoped). */
  async list(query: ListOrdersQuery): Promise<ListedPage> {
    const { filters, sort, size, cursor, writerPosition } = query;
    const offset = (query.page - 1) * size;
    // One order past a followed page tells whether its walk goes on.
    const request: PageRequest = { filters, sort, limit: cursor ? size + 1 : size, offset, cursor };
    const required = this.orders.requirementOf(filters, sort);
    let read: { rows: OrderRow[]; more: boolean; total: number; seats: SeatRow[]; behindSeconds?: number };
    try {
      read = await this.reads.withConnection(
        async (session) => {
          // A page by number far from the start is counted first, and read from where it lies (docs/API.md §22).
          const reaching = this.orders.reach(request, session);
          const reach = reaching && (await reaching);
          if (reach && !reach.read) {
            return { rows: [], more: false, total: reach.total, seats: [], behindSeconds: session.behindSeconds };
          }
          const wanted = reach?.read ?? request;
          // A followed page counts the orders of its walk: those matching now, but for any placed since it began.
          const counts = { newestOrderId: cursor?.bound, sizes: reach?.sizes };
          const plan = readyOrRefused(await this.orders.plan(wanted, session, counts), sort);
          // A day's orders bound a jump; from the nearer end, what the server passes in time bounds the page.
          const most =
            reach && !reach.byDay
              ? mostPassed(plan.read, sort[0].field, reach.total, session.catalog.estimatedRows('orders'))
              : Number.POSITIVE_INFINITY;
          if (reach && wanted.offset > most) throw outOfReach(query, reach.total, wanted.offset, most);
          const found = await this.orders.findPage(wanted, plan, session);
          // Backwards, the order past the page is its first (the outer ORDER BY puts the rows back in sort order).
          const rows = cursor?.direction === 'before' ? found.slice(-size) : found.slice(0, size);
          if (reach?.reversed) rows.reverse();
          const known =
            reach?.total ?? plan.sizes?.matching ?? (cursor ? undefined : totalOfPage(rows.length, offset, size));
          const ids = rows.map((row) => row.id);
          const { seats, total } =
            known === undefined
              ? await this.orders.findSeatsAndCount(ids, { filters, newestOrderId: cursor?.bound }, session)
              : { seats: await this.orders.findSeats(ids, session, { last: true }), total: known };
          return { rows, more: found.length > size, total, seats, behindSeconds: session.behindSeconds };
        },
        { required, writerPosition },
      );
    } catch (error) {
      throw refusalOf(error, filters, sort);
    }

    const { rows, more, total, seats, behindSeconds } = read;
    const page = buildPage(this.elementsOf(rows, seats, query.variant), total, query.page, size) as OrdersPage;
    const [first, last] = [rows.at(0), rows.at(-1)];
    const bound = Number(cursor?.bound ?? first?.newestOrderId);
    return {
      page,
      continuation:
        first && last && !Number.isNaN(bound)
          ? {
              after: { direction: 'after', key: sortValuesOf(last, sort), bound },
              before: { direction: 'before', key: sortValuesOf(first, sort), bound },
            }
          : undefined,
      walk: cursor && { direction: cursor.direction, more },
      behindSeconds,
    };
  }

  /** An export: every order the query matches, in its sort order, a batch at a time. */
  async *exportBatches(
    query: ListOrdersQuery,
    cancelled: AbortSignal,
    pinned?: (behindSeconds: number | undefined, position: () => Promise<string | undefined>) => void,
  ): AsyncGenerator<OrderElement[]> {
    const { filters, sort, writerPosition } = query;
    let reads: PinnedReads;
    try {
      reads = this.reads.pinned({ required: this.orders.requirementOf(filters, sort), writerPosition });
    } catch (error) {
      throw refusalOf(error, filters, sort);
    }
    // Counted for the first batch where the counts decide the plan, and kept: every batch is one walk's.
    let sizes: MatchSizes | undefined;
    const readPage = (cursor: KeysetCursor | undefined): Promise<ExportPage> =>
      reads.withConnection(async (session) => {
        const request: PageRequest = { filters, sort, limit: EXPORT_BATCH_SIZE + 1, offset: 0, cursor };
        const plan = readyOrRefused(await this.orders.plan(request, session, { sizes }), sort);
        sizes = plan.sizes;
        const read = await this.orders.findPage(request, plan, session, { last: true });
        const { behindSeconds } = session;
        return { rows: read.slice(0, EXPORT_BATCH_SIZE), more: read.length > EXPORT_BATCH_SIZE, cursor, behindSeconds };
      }, cancelled);
    const readSeats = (rows: readonly OrderRow[]): Promise<SeatRow[]> =>
      reads.withConnection(
        (session) =>
          this.orders.findSeats(
            rows.map((row) => row.id),
            session,
          ),
        cancelled,
      );

    /** A batch's page, then its seats as soon as its page is in: neither waits for the consumer. */
    const readBatch = (cursor: KeysetCursor | undefined): BatchReads => {
      const page = readPage(cursor);
      const seats = page.then(({ rows }) => readSeats(rows));
      // Awaited in turn, or in `finally` below: a failure meanwhile is never an unhandled one.
      seats.catch(() => undefined);
      return { page, seats };
    };

    let next: BatchReads | undefined = readBatch(undefined);
    // Nothing is sent before the first batch is read: if its server fails, the export starts over once on another.
    await Promise.all([next.page, next.seats]).catch(async (error: unknown) => {
      if (!reads.moveAfter(error)) return;
      await Promise.allSettled([next!.page, next!.seats]);
      sizes = undefined;
      next = readBatch(undefined);
    });
    try {
      while (next) {
        const batch: BatchReads = next;
        const { rows, more, cursor, behindSeconds } = await batch.page.catch((error: unknown) => {
          throw refusalOf(error, filters, sort);
        });
        // Known once the first page is read: whether the export's server had what it must reflect.
        if (!cursor) pinned?.(behindSeconds, () => reads.position());
        const last = rows.at(-1);
        const bound = cursor?.bound ?? last?.newestOrderId;
        next =
          more && last && bound !== undefined
            ? readBatch({ direction: 'after', key: sortValuesOf(last, sort), bound: Number(bound) })
            : undefined;
        yield this.elementsOf(rows, await batch.seats, query.variant);
      }
    } finally {
      // A batch read ahead is left unread when the consumer stops; the export ends once its connections are back.
      if (next) await Promise.allSettled([next.page, next.seats]);
    }
  }

  private elementsOf(rows: OrderRow[], seats: SeatRow[], variant: ListingVariant): OrderElement[] {
    const seatsByOrder = groupSeats(seats);
    return rows.map((row) => variant.toElement(row, seatsByOrder.get(row.id) ?? [], this.time));
  }
}
