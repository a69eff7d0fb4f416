import { Injectable } from '@nestjs/common';
import { ReadRouter, type PinnedReads } from '../database/read-router';
import type { ReadSession, StatementKind } from '../database/read-session';
import type { KeysetCursor, OrderFilters, OrderRow, SortKey } from './model';
import { ORDERS_TABLE, PagePlans, type CountRow } from './page-plans';
import type { MatchSizes } from './query-plan';
import { mostPassed } from './skip-limits';
import { CountStatements, sizesOf } from './statements/count-statement';
import { PageStatements, type PageRequest } from './statements/page-statement';
import { SeatStatements, type SeatRow } from './statements/seat-statement';

/** A page to read: by number (its offset), or followed from a continuation's cursor. */
export interface PageQuery {
  filters: OrderFilters;
  sort: SortKey[];
  size: number;
  offset: number;
  cursor?: KeysetCursor;
  /** A writer's position the page must reflect (docs/API.md §19). */
  writerPosition?: string;
}

/** A page as read: its orders in sort order, their seats, and the total of its listing (or of its walk). */
export interface PageRead {
  rows: OrderRow[];
  seats: SeatRow[];
  total: number;
  /** On a followed page: whether its walk has orders past it, in the direction it was followed. */
  more: boolean;
  /** The newest order when the walk began: orders placed since stay out of its pages. None on an empty page. */
  walkBound?: number;
  /** Read from a replica behind past DB_REPLICA_MAX_LAG_S, at most this many seconds behind. */
  behindSeconds?: number;
}

/** One batch of an export: its orders, whether more follow, and the counts its plan read, kept for the next batch. */
export interface ExportBatchRead {
  rows: OrderRow[];
  more: boolean;
  /** The export's walk's bound: the newest order when its first batch was read. */
  walkBound?: number;
  sizes?: MatchSizes;
  behindSeconds?: number;
}

/** The plan would sort more orders whole for each page than the server sorts within the deadline. */
export class TooManyToSortError extends Error {
  constructor(
    readonly sortedWhole: number,
    readonly maxSortedWhole: number,
  ) {
    super(`${sortedWhole} orders to sort whole, more than ${maxSortedWhole}`);
  }
}

/** A page by number lies further from both ends of its listing than a server passes in time. */
export class PageOutOfReachError extends Error {
  constructor(
    readonly total: number,
    readonly passed: number,
    readonly most: number,
  ) {
    super(`${passed} orders to pass, more than ${most}`);
  }
}

/** A page by offset neither empty nor full is the last, and tells the total, as an empty first page does. */
function totalOfPage(rowCount: number, offset: number, size: number): number | undefined {
  if (rowCount > 0 && rowCount < size) return offset + rowCount;
  return rowCount === 0 && offset === 0 ? 0 : undefined;
}

/** The walk's bound a page read without a cursor carries, as a number whichever driver read it. */
const walkBoundOf = (row: OrderRow | undefined): number | undefined =>
  row?.newestOrderId === undefined ? undefined : Number(row.newestOrderId);

/** The listing's reads, each in one unit of work: a page of `orders` alone in a deferred join, its count, and its
 * seats in one `IN (...)`. */
@Injectable()
export class OrdersRepository {
  constructor(
    private readonly reads: ReadRouter,
    private readonly plans: PagePlans,
    private readonly pages: PageStatements,
    private readonly counts: CountStatements,
    private readonly seats: SeatStatements,
  ) {}

  /** A page, its seats and its total on one connection: planned, counted first where the plan needs it, and a deep
   * page by number read from where it lies (docs/API.md §14, §22). */
  async readPage({ filters, sort, size, offset, cursor, writerPosition }: PageQuery): Promise<PageRead> {
    // One order past a followed page tells whether its walk goes on.
    const request: PageRequest = { filters, sort, limit: cursor ? size + 1 : size, offset, cursor };
    const newestOrderId = cursor?.bound;
    const required = this.plans.requirementOf(filters, sort);
    const onOneConnection = async (session: ReadSession): Promise<PageRead> => {
      const reaching = this.plans.reach(request, session);
      const reach = reaching && (await reaching);
      if (reach && !reach.read) {
        return { rows: [], seats: [], total: reach.total, more: false, behindSeconds: session.behindSeconds };
      }
      const wanted = reach?.read ?? request;
      // A followed page counts the orders of its walk: those matching now, but for any placed since it began.
      const plan = await this.plans.plan(wanted, session, { newestOrderId, sizes: reach?.sizes });
      if (plan.kind === 'refused') throw new TooManyToSortError(plan.sortedWhole, plan.maxSortedWhole);
      if (reach && !reach.byDay) {
        // A day's orders bound a jump; from the nearer end, what the server passes in time bounds the page.
        const most = mostPassed(plan.read, sort[0].field, reach.total, session.catalog.estimatedRows(ORDERS_TABLE));
        if (wanted.offset > most) throw new PageOutOfReachError(reach.total, wanted.offset, most);
      }
      const page = this.pages.statement(wanted, plan.read, plan.sizes?.bounds);
      const [found] = await session.read<[OrderRow[]]>('page', [page]);
      // Backwards, the order past the page is its first (the outer ORDER BY puts the rows back in sort order).
      const rows = cursor?.direction === 'before' ? found.slice(-size) : found.slice(0, size);
      if (reach?.reversed) rows.reverse();
      const known =
        reach?.total ?? plan.sizes?.matching ?? (cursor ? undefined : totalOfPage(rows.length, offset, size));
      // The count and the seats in one round trip (docs/adr/0022), the last statements on the connection.
      const statements =
        known === undefined ? [this.counts.statement(filters, { withTable: false, newestOrderId })] : [];
      if (rows.length > 0) statements.push(this.seats.statement(rows.map((row) => row.id)));
      const kind: StatementKind = statements.length > 1 ? 'count+seats' : known === undefined ? 'count' : 'seats';
      const results = statements.length > 0 ? await session.read<unknown[]>(kind, statements, { last: true }) : [];
      return {
        rows,
        seats: rows.length > 0 ? (results.at(-1) as SeatRow[]) : [],
        total: known ?? sizesOf((results[0] as CountRow[])[0], undefined).matching,
        more: found.length > size,
        walkBound: newestOrderId ?? walkBoundOf(rows[0]),
        behindSeconds: session.behindSeconds,
      };
    };
    // Awaited, so that a trace shows the repository between the service and the router, as it is.
    return await this.reads.unitOfWork(onOneConnection, { required, writerPosition });
  }

  /** The reads of one export: every batch from the server routing picks now (docs/API.md §13). */
  exportReads(filters: OrderFilters, sort: SortKey[], writerPosition?: string): PinnedReads {
    return this.reads.pinned({ required: this.plans.requirementOf(filters, sort), writerPosition });
  }

  /** An export's batch of orders, planned with the counts of its first batch: every batch is one walk's. */
  readBatch(
    reads: PinnedReads,
    request: PageRequest,
    sizes: MatchSizes | undefined,
    cancelled: AbortSignal,
  ): Promise<ExportBatchRead> {
    return reads.batch(async (session) => {
      const batch = { ...request, limit: request.limit + 1 };
      const plan = await this.plans.plan(batch, session, { sizes });
      if (plan.kind === 'refused') throw new TooManyToSortError(plan.sortedWhole, plan.maxSortedWhole);
      const statement = this.pages.statement(batch, plan.read, plan.sizes?.bounds);
      const [rows] = await session.read<[OrderRow[]]>('page', [statement], { last: true });
      return {
        rows: rows.slice(0, request.limit),
        more: rows.length > request.limit,
        walkBound: request.cursor?.bound ?? walkBoundOf(rows[0]),
        sizes: plan.sizes,
        behindSeconds: session.behindSeconds,
      };
    }, cancelled);
  }

  /** The seats of a batch's orders, on a connection of its own. */
  readSeats(reads: PinnedReads, orderIds: number[], cancelled: AbortSignal): Promise<SeatRow[]> {
    if (orderIds.length === 0) return Promise.resolve([]);
    return reads.batch(async (session) => {
      const [seats] = await session.read<[SeatRow[]]>('seats', [this.seats.statement(orderIds)]);
      return seats;
    }, cancelled);
  }
}
