import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DATABASE_CONFIG } from '../config/config.module';
import type { DatabaseConfig } from '../config/database.config';
import type { ReadSession } from '../database/read-session';
import type { ServerRequirement } from '../database/server-choice';
import type { ServerCatalog } from '../database/server-catalog';
import { Order } from './order.entity';
import type { OrderColumn, OrdersIndex } from './index-fit';
import { boundingIndexes, QueryPlanner, type MatchSizes, type QueryPlan } from './query-plan';
import { REPLICA_INDEXES } from './replica-indexes';
import { CountStatements, sizesOf } from './statements/count-statement';
import type { PageRequest } from './statements/page-statement';
import { DayCountStatements, dayCountsOf } from './statements/day-counts-statement';
import type { OrderFilters, SortKey } from './model';
import { boundedColumnOf } from './range-bounds';
import { DAY_MS, reversed, sortShapeOf } from './statements/statement-parts';
import { dayHolding, DEEP_OFFSET, fromNearerEnd } from './paging/page-reach';

export const ORDERS_TABLE = 'orders';

export type CountRow = Record<string, number | string | null>;

/** Which filters a listing has, and its sort: what routing needs of it is the same for any values. */
const shapeOf = (filters: OrderFilters, sort: SortKey[]): string =>
  `${[filters.userId, filters.concertId, filters.status, filters.createdFrom, filters.createdBefore]
    .map((value) => (value === undefined ? '-' : '+'))
    .join('')}|${sortShapeOf(sort)}`;

/** As many shapes as QueryShapes keeps: a flood of odd sort orders does not grow memory. */
const MAX_REQUIREMENTS = 1000;

/** What a page's plan may start from: counts already read for its walk, or the bound of the walk to count. */
export interface KnownSizes {
  sizes?: MatchSizes;
  newestOrderId?: number;
}

type ServerPlan = CountsFirst | ReadyPlan | RefusedPlan;

/** The best plan depends on how many orders match: count them (`sizes`), then plan again with the counts. */
interface CountsFirst {
  kind: 'counts-first';
}

/** Read through `read` (none on the embedded database, which chooses itself), with the counts where they were read. */
export interface ReadyPlan {
  kind: 'ready';
  read?: QueryPlan;
  sizes?: MatchSizes;
}

/** The plan would sort more orders whole for each page than this server sorts within the deadline. */
export interface RefusedPlan {
  kind: 'refused';
  /** Orders the plan would sort whole for each page, and the most this server sorts within the deadline. */
  sortedWhole: number;
  maxSortedWhole: number;
}

/** A deep page by number: its listing's total, and the page as read from its day (`byDay`) or the nearer end; none past
 * the end. */
export interface PageReach {
  total: number;
  read?: PageRequest;
  reversed: boolean;
  byDay: boolean;
  /** From the nearer end: the counts the read's plan weighs, read with the total rather than again. */
  sizes?: MatchSizes;
}

/** docs/API.md §14 and §22: how a page is read on a server, what a server must hold to read it in time, and where a
 * deep page by number lies. */
@Injectable()
export class PagePlans {
  /** The entity's indexes, which every server holds; none on SQLite, whose `INDEXED BY` fails rather than choosing. */
  private readonly schemaIndexes?: readonly OrdersIndex[];
  /** A planner per catalog: each server's indexes, the replicas' own among them, as last read. */
  private readonly planners = new WeakMap<ServerCatalog, QueryPlanner>();
  private readonly fullSortMaxOrders: number;
  /** What a server must hold, by shape: a shape's requirement depends on which filters it has, not their values. */
  private readonly requirements = new Map<string, ServerRequirement | undefined>();

  constructor(
    @InjectDataSource() dataSource: DataSource,
    @Inject(DATABASE_CONFIG) config: DatabaseConfig,
    private readonly counts: CountStatements,
    private readonly dayCounts: DayCountStatements,
  ) {
    this.fullSortMaxOrders = config.type === 'mysql' ? config.fullSortMaxOrders : Number.POSITIVE_INFINITY;
    if (dataSource.options.type === 'mysql' || dataSource.options.type === 'mariadb') {
      this.schemaIndexes = dataSource.getMetadata(Order).indices.map((index) => ({
        name: index.name,
        columns: index.columns.map((column) => column.propertyName as OrderColumn),
      }));
    }
  }

  /** The plans a server can run: through the schema's indexes and the replica indexes it holds. */
  private plannerFor(catalog: ServerCatalog): QueryPlanner | undefined {
    if (!this.schemaIndexes) return undefined;
    let planner = this.planners.get(catalog);
    if (!planner) {
      const held = catalog.indexes(ORDERS_TABLE);
      const candidates = [...this.schemaIndexes, ...REPLICA_INDEXES];
      planner = new QueryPlanner(
        held.size === 0 ? this.schemaIndexes : candidates.filter((index) => held.has(index.name)),
      );
      this.planners.set(catalog, planner);
    }
    return planner;
  }

  /** How a page is read on the session's server, from its shape or from the counts read first. */
  async plan(
    request: PageRequest,
    session: ReadSession,
    { sizes, newestOrderId }: KnownSizes = {},
  ): Promise<ReadyPlan | RefusedPlan> {
    const first = this.planOn(request, session, sizes);
    return first.kind === 'counts-first'
      ? this.planOn(request, session, await this.sizes(request, session, newestOrderId))
      : first;
  }

  /** A page by number past DEEP_OFFSET, counted in its page's snapshot, read from its day or the nearer end;
   * undefined where OFFSET serves (a shallow or followed page, small embedded tables, no snapshot). */
  reach(request: PageRequest, session: ReadSession): Promise<PageReach> | undefined {
    const { cursor, offset } = request;
    if (cursor || offset < DEEP_OFFSET || !this.plannerFor(session.catalog) || !session.catalog.readsOneSnapshot) {
      return undefined;
    }
    return this.reachDeep(request, session);
  }

  private async reachDeep(request: PageRequest, session: ReadSession): Promise<PageReach> {
    const { filters, sort, offset, limit } = request;
    session.beginSnapshot();
    const [first] = sort;
    if (first.field === 'createdAt' && filters.userId === undefined && filters.concertId === undefined) {
      const [rows] = await session.read<[CountRow[]]>('count', [this.dayCounts.statement(filters)]);
      const days = dayCountsOf(rows);
      const total = days.reduce((sum, { orders }) => sum + orders, 0);
      const newestFirst = first.direction === 'DESC';
      const at = dayHolding(newestFirst ? days.reverse() : days, offset);
      if (!at) return { total, reversed: false, byDay: true };
      // The rest of the range from that day on: the page starts within it, and may run on into the next days.
      const { createdFrom, createdBefore } = filters;
      const dayEdge = (at.day + (newestFirst ? 1 : 0)) * DAY_MS;
      const narrowed = newestFirst
        ? { ...filters, createdBefore: createdBefore === undefined ? dayEdge : Math.min(createdBefore, dayEdge) }
        : { ...filters, createdFrom: createdFrom === undefined ? dayEdge : Math.max(createdFrom, dayEdge) };
      return { total, read: { ...request, filters: narrowed, offset: at.offset }, reversed: false, byDay: true };
    }
    const sizes = await this.sizes(request, session);
    const total = sizes.matching;
    const end = fromNearerEnd(offset, limit, total);
    if (!end) return { total, reversed: false, byDay: false };
    const read = { ...request, sort: end.reversed ? reversed(sort) : sort, offset: end.offset, limit: end.limit };
    return { total, read, reversed: end.reversed, byDay: false, sizes };
  }

  /** An index bounding the shape's work by its page, or a table small enough to sort whole; once per shape. */
  requirementOf(filters: OrderFilters, sort: SortKey[]): ServerRequirement | undefined {
    if (!this.schemaIndexes) return undefined;
    const shape = shapeOf(filters, sort);
    if (!this.requirements.has(shape)) {
      const anyIndexOf = boundingIndexes([...this.schemaIndexes, ...REPLICA_INDEXES], filters, sort);
      if (this.requirements.size >= MAX_REQUIREMENTS) {
        this.requirements.delete(this.requirements.keys().next().value as string);
      }
      this.requirements.set(
        shape,
        anyIndexOf && {
          table: ORDERS_TABLE,
          anyIndexOf,
          sortsWholeUpTo: this.fullSortMaxOrders,
          heldBeforeRead: new QueryPlanner(this.schemaIndexes).bounded(filters, sort),
        },
      );
    }
    return this.requirements.get(shape);
  }

  /** The page's plan on the session's server, for the rows it wants (offset and size, or a followed page's size). */
  private planOn(request: PageRequest, session: ReadSession, sizes: MatchSizes): ReadyPlan | RefusedPlan;
  private planOn(request: PageRequest, session: ReadSession, sizes?: MatchSizes): ServerPlan;
  private planOn(
    { filters, sort, limit, offset, cursor }: PageRequest,
    session: ReadSession,
    sizes?: MatchSizes,
  ): ServerPlan {
    const { catalog } = session;
    const planner = this.plannerFor(catalog);
    if (!planner) return { kind: 'ready', sizes };
    const most = this.mostReadWhole(catalog);
    const read = planner.plan(filters, sort, (cursor ? 0 : offset) + limit, sizes, most);
    if (!read) return { kind: 'counts-first' };
    // A plan chosen without the sizes is bounded by its page, or by a member's or concert's orders.
    if ('readWhole' in read && most !== Number.POSITIVE_INFINITY) {
      const whole = read.readWhole ?? catalog.estimatedRows(ORDERS_TABLE);
      if (whole > most) return { kind: 'refused', sortedWhole: whole, maxSortedWhole: most };
    }
    return { kind: 'ready', read, sizes };
  }

  private mostReadWhole(catalog: ServerCatalog): number {
    return catalog.embedded || catalog.estimatedRows(ORDERS_TABLE) <= this.fullSortMaxOrders
      ? Number.POSITIVE_INFINITY
      : this.fullSortMaxOrders;
  }

  /** The counts a plan weighs, and where the matches lie in the sort's column (docs/adr/0020). */
  private async sizes(
    { filters, sort }: Pick<PageRequest, 'filters' | 'sort'>,
    session: ReadSession,
    newestOrderId?: number,
  ): Promise<MatchSizes> {
    const planner = this.plannerFor(session.catalog);
    const wanted = planner?.sizesWanted(filters) ?? { table: false, range: false, span: false };
    // Only where the counts and the page can read one snapshot: otherwise the bounds could leave a match out.
    const bounds = planner && session.catalog.readsOneSnapshot ? boundedColumnOf(filters, sort) : undefined;
    if (bounds) session.beginSnapshot();
    const options = { withTable: wanted.table, withRange: wanted.range, withSpan: wanted.span, newestOrderId, bounds };
    const [[row]] = await session.read<[CountRow[]]>('count', [this.counts.statement(filters, options)]);
    return sizesOf(row, options.bounds);
  }
}
