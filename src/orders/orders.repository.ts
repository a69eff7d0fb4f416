import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, SelectQueryBuilder, type ObjectLiteral } from 'typeorm';
import { storedDateTimeToEpochMs, toStoredDateTime } from '../common/time/local-time';
import { QueryShapes, type QueryValues } from '../database/query-shapes';
import { DATABASE_CONFIG } from '../config/config.module';
import type { DatabaseConfig } from '../config/database.config';
import type { ReadSession, ServerCapability } from '../database/read-router';
import type { ServerCatalog } from '../database/server-catalog';
import { ObservedStatements, type ListingStatement } from '../observability/observed-statements';
import { OrderSeat } from './order-seat.entity';
import { COUNT_CHANGES_TABLE, COUNT_MOVES_TABLE, DAILY_COUNTS_TABLE } from './counting/daily-counts';
import { Order } from './order.entity';
import type { Seek, SortValue } from './paging/continuation';
import type { OrderFilters, OrderRow } from './model';
import type { SortField, SortKey } from './query/sort';
import {
  ReadPlanner,
  SORT_COLUMNS,
  type MatchSizes,
  type OrderColumn,
  type OrdersIndex,
  type ReadPlan,
} from './read-plan';
import type { MonthBranch } from './month-branches';
import { REPLICA_COLUMN, REPLICA_INDEXES } from './replica-indexes';

/** A row's value of each sort key, as a continuation carries it and `findPage` seeks from it (times as epoch ms). */
export function sortValuesOf(row: OrderRow, sort: SortKey[]): SortValue[] {
  return sort.map(({ field }) => {
    const value = row[SORT_COLUMNS[field]];
    // A time is a Date from mysql2 and stored text from sql.js; the token carries neither, but the instant.
    return TIME_FIELDS.has(field) ? storedDateTimeToEpochMs(value as Date | string) : (value as SortValue);
  });
}

/** A page to read: by offset, or, with `seek`, from a boundary key within a walk's bound (offset then unused). */
export interface PageRequest {
  filters: OrderFilters;
  sort: SortKey[];
  limit: number;
  offset: number;
  seek?: Seek;
}

/**
 * docs/API.md §14: how a page is read on the session's server, planned from what is known of it. `plan` is the one
 * way in: it answers what the rest needs, or that the counts decide, in which case it is asked again with them.
 */
export type ListingPlan = CountsFirst | ReadyPlan | RefusedPlan;

/** The best plan depends on how many orders match: count them (`sizes`), then plan again with the counts. */
interface CountsFirst {
  kind: 'counts-first';
}

/** Read through `read` (none on the embedded database, which chooses itself), with the counts where they were read. */
export interface ReadyPlan {
  kind: 'ready';
  read?: ReadPlan;
  sizes?: MatchSizes;
}

/** The plan would sort more orders whole for each page than this server sorts within the deadline. */
export interface RefusedPlan {
  kind: 'refused';
  read: number;
  most: number;
}

export interface SeatRow {
  orderId: number;
  seatPriceId: number;
  price: number;
}

const DAY_MS = 86_400_000;
const ORDERS_TABLE = 'orders';
const TIME_FIELDS: ReadonlySet<SortField> = new Set(['createdAt', 'updatedAt']);
/** The columns of a count statement that hold the whole table's count, not the matching orders'. */
const TABLE_TOTAL_COLUMNS = ['tableWholeDays', 'tableUnfolded'];
/** The column of a count statement that holds the matching orders a walk leaves out, to be subtracted. */
const NEWER_THAN_WALK_COLUMN = 'newerThanWalk';
/** The column of a count statement that holds about how many orders the date range holds, for the planner. */
const RANGE_COLUMN = 'rangeOrders';
/** The columns of a count statement that hold when the oldest and newest orders were placed, for a month merge. */
const SPAN_COLUMNS = { first: 'firstCreated', last: 'lastCreated' } as const;

interface CountOptions {
  /** Also sum the whole table, for the planner. */
  withTable: boolean;
  /** Also sum the whole days the date range touches, whatever else is filtered, for the planner. */
  withRange?: boolean;
  /** Also read when the oldest and newest orders were placed, for the planner. */
  withSpan?: boolean;
  /** Count only the orders a walk with this bound includes. */
  walkBound?: number;
}

const countKey = ({ withTable, withRange, withSpan, walkBound }: CountOptions): string =>
  `${withTable ? '|table' : ''}${withRange ? '|range' : ''}${withSpan ? '|span' : ''}${walkBound === undefined ? '' : '|walk'}`;
const toDay = (epochMs: number): string => new Date(epochMs).toISOString().slice(0, 10);

/** A page's ids as `findPage` joins them: the statement's shape key and values, and its SQL built once per shape. */
interface PageIds {
  key: string;
  values: QueryValues;
  build: () => { sql: string; parameters: ObjectLiteral };
}

/** A condition of the filters, with its parameter named after the alias so that several can share one statement. */
interface Condition {
  sql: string;
  name: string;
  value: unknown;
}

const reversed = (sort: SortKey[]): SortKey[] =>
  sort.map(({ field, direction }) => ({ field, direction: direction === 'ASC' ? 'DESC' : 'ASC' }));

const valuesOf = (conditions: Condition[]): QueryValues =>
  Object.fromEntries(conditions.map(({ name, value }) => [name, value]));
/** Which filters are present, in a fixed order: part of a statement's shape. */
const presentIn = (conditions: Condition[]): string => conditions.map(({ name }) => name).join(',');

/**
 * Reads for the listing, each a single statement: a page of `orders` alone
 * (LIMIT/OFFSET over an index in a deferred join, never TypeORM's skip/take
 * over a one-to-many join), a plain COUNT(*), and the page's seats in one `IN (...)`.
 * The query builder writes each statement's SQL once per shape (QueryShapes).
 */
@Injectable()
export class OrdersRepository {
  private readonly shapes: QueryShapes;
  /**
   * The indexes the schema gives every server (the entity's), on MySQL and MariaDB only: SQLite has no hint that
   * leaves it a choice (`INDEXED BY` fails when the index cannot serve), and the embedded database holds demo
   * data that any plan reads at once.
   */
  private readonly schemaIndexes?: readonly OrdersIndex[];
  /** A planner per catalog: each server's indexes, the replicas' own among them, as last read. */
  private readonly planners = new WeakMap<ServerCatalog, ReadPlanner>();
  private readonly fullSortMaxOrders: number;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly statements: ObservedStatements,
    @Inject(DATABASE_CONFIG) config: DatabaseConfig,
  ) {
    this.shapes = new QueryShapes(dataSource);
    this.fullSortMaxOrders = config.type === 'mysql' ? config.fullSortMaxOrders : Number.POSITIVE_INFINITY;
    if (dataSource.options.type === 'mysql' || dataSource.options.type === 'mariadb') {
      this.schemaIndexes = dataSource.getMetadata(Order).indices.map((index) => ({
        name: index.name,
        columns: index.columns.map((column) => column.propertyName as OrderColumn),
      }));
    }
  }

  /**
   * The plans a server can run: through the schema's indexes and the replica indexes it holds. A catalog not
   * read yet names none, and then only the schema's are assumed (the migrations put them on every server).
   */
  private plannerFor(catalog: ServerCatalog): ReadPlanner | undefined {
    if (!this.schemaIndexes) return undefined;
    let planner = this.planners.get(catalog);
    if (!planner) {
      const held = catalog.indexes(ORDERS_TABLE);
      const candidates = [...this.schemaIndexes, ...REPLICA_INDEXES];
      planner = new ReadPlanner(
        held.size === 0 ? this.schemaIndexes : candidates.filter((index) => held.has(index.name)),
      );
      this.planners.set(catalog, planner);
    }
    return planner;
  }

  /**
   * docs/API.md §14: which servers can answer a listing of these filters in this sort within its deadline. One
   * whose indexes bound the work by the page, or whose table is small enough to be sorted whole; the embedded
   * database always.
   */
  servers(filters: OrderFilters, sort: SortKey[]): ServerCapability {
    // Routing asks of a server more than once per request (its pick, whether another could take a retry).
    const answers = new Map<ServerCatalog, boolean>();
    return (catalog) => {
      let serves = answers.get(catalog);
      if (serves === undefined) {
        serves =
          catalog.embedded ||
          catalog.estimatedRows(ORDERS_TABLE) <= this.fullSortMaxOrders ||
          (this.plannerFor(catalog)?.bounded(filters, sort) ?? true);
        answers.set(catalog, serves);
      }
      return serves;
    };
  }

  /**
   * The page's plan on the session's server (docs/API.md §14), for the rows a page wants (offset and size, or a
   * followed page's size). Where the plan the sizes choose would read whole, for each page, more orders than the server
   * sorts within the deadline (DB_FULL_SORT_MAX_ORDERS), it is refused: a date range sorted by update time is such a
   * plan, no index reading it in order, as update time follows creation time.
   */
  plan(request: PageRequest, session: ReadSession, sizes: MatchSizes): ReadyPlan | RefusedPlan;
  plan(request: PageRequest, session: ReadSession, sizes?: MatchSizes): ListingPlan;
  plan({ filters, sort, limit, offset, seek }: PageRequest, session: ReadSession, sizes?: MatchSizes): ListingPlan {
    const { catalog } = session;
    const planner = this.plannerFor(catalog);
    if (!planner) return { kind: 'ready', sizes };
    const most = this.mostReadWhole(catalog);
    const read = planner.plan(filters, sort, (seek ? 0 : offset) + limit, sizes, most);
    if (!read) return { kind: 'counts-first' };
    // A plan chosen without the sizes is bounded by its page, or by a member's or concert's orders.
    if ('readWhole' in read && most !== Number.POSITIVE_INFINITY) {
      const whole = read.readWhole ?? catalog.estimatedRows(ORDERS_TABLE);
      if (whole > most) return { kind: 'refused', read: whole, most };
    }
    return { kind: 'ready', read, sizes };
  }

  /** How many orders a plan may read whole for each page on this server: any number while its table is that small. */
  private mostReadWhole(catalog: ServerCatalog): number {
    return catalog.embedded || catalog.estimatedRows(ORDERS_TABLE) <= this.fullSortMaxOrders
      ? Number.POSITIVE_INFINITY
      : this.fullSortMaxOrders;
  }

  /**
   * A deferred join: the page's ids are found first, from the index alone
   * (filter columns, created_at, and the primary key InnoDB appends), and only
   * those rows are read. A plain OFFSET would read every skipped row in full;
   * this keeps deep pages cheap. Still a single statement. The ids are read
   * through the index the plan names (`plan`, ReadPlanner), told to the server
   * as `USE INDEX`.
   *
   * With a seek, the ids are the first `limit` past the boundary key in the
   * walk's direction (a range of the same index, no offset), among the orders
   * the walk's bound admits; backwards, they are read in reverse and the outer
   * ORDER BY puts them back. Without one, each row also carries the walk bound
   * a link from this page starts with, read in the same snapshot.
   */
  async findPage(request: PageRequest, { read }: ReadyPlan, session: ReadSession): Promise<OrderRow[]> {
    const { sort, limit, seek } = request;
    const offset = seek ? 0 : request.offset;
    const indexes = read?.indexes;
    const ids = read?.branches ? this.mergedIds(request, read.branches, indexes ?? []) : this.pageIds(request, indexes);
    const values = { ...ids.values, pageLimit: limit, pageOffset: offset };
    const key = `page|${ids.key}|${sort.map(({ field, direction }) => `${field} ${direction}`).join(',')}|${indexes?.join(',') ?? ''}|${seek?.direction ?? ''}`;
    const statement = this.shapes.statement(key, values, () => {
      const pageIds = ids.build();
      const query = this.dataSource
        .createQueryBuilder(Order, 'o')
        // Limit and offset as parameters, so that every page of a shape shares its SQL.
        .innerJoin(`(${pageIds.sql} LIMIT :pageLimit OFFSET :pageOffset)`, 'p', 'p.id = o.id')
        .setParameters({ ...pageIds.parameters, pageLimit: limit, pageOffset: offset })
        .select('o.id', 'id')
        .addSelect('o.userId', 'userId')
        .addSelect('o.concertId', 'concertId')
        .addSelect('o.totalPrice', 'totalPrice')
        .addSelect('o.status', 'status')
        .addSelect('o.createdAt', 'createdAt')
        .addSelect('o.updatedAt', 'updatedAt');
      if (!seek) {
        // The table's newest id, one step down the primary key; continuations encrypt it, as no caller may read it.
        const newest = this.dataSource.createQueryBuilder(Order, 'n').select('MAX(n.id)');
        query.addSelect(`(${newest.getQuery()})`, 'walkBound');
      }
      return this.sorted(query, 'o', sort);
    });
    return this.run<OrderRow[]>('page', statement, session);
  }

  /** The page's ids, in its sort order, through the index the planner chose: what `findPage` joins its rows to. */
  private pageIds({ filters, sort, seek }: PageRequest, indexes: readonly string[] | undefined): PageIds {
    const conditions = this.conditions(filters, 'i');
    const walk = seek && this.walkConditions(sort, seek, 'i');
    return {
      key: presentIn(conditions),
      values: { ...valuesOf(conditions), ...(walk && valuesOf([walk.bound, ...walk.terms])) },
      build: () => {
        const pageIds = this.matching(conditions, 'i');
        if (walk) this.seeking(pageIds, walk);
        this.sorted(pageIds, 'i', seek?.direction === 'before' ? reversed(sort) : sort).select('i.id', 'id');
        if (indexes) pageIds.useIndex([...indexes]);
        return { sql: pageIds.getQuery(), parameters: pageIds.getParameters() };
      },
    };
  }

  /**
   * docs/API.md §14, a month merge: the page's ids as the first of the ids each branch yields in the sort's order,
   * each branch reading at most as many as the page needs (offset and size): a month's stretch of the month index
   * walked in update order, or an edge's dates read from the dates' covering index and sorted. Each branch holds the
   * request's filters and seek, so that the merge is the plain query's rows in the same order.
   */
  private mergedIds(
    { filters, sort, limit, offset, seek }: PageRequest,
    branches: readonly MonthBranch[],
    indexes: readonly string[],
  ): PageIds {
    const [walkedIndex, sortedIndex] = indexes;
    const order = seek?.direction === 'before' ? reversed(sort) : sort;
    const parts = branches.map((branch, position) => {
      const alias = `m${position}`;
      // A sorted part's dates lie within the range's, so they stand in for the range's bounds they narrow.
      const conditions =
        branch.kind === 'walk'
          ? this.conditions(filters, alias)
          : this.conditions(
              {
                ...filters,
                createdFrom: branch.from ?? filters.createdFrom,
                createdBefore: branch.before ?? filters.createdBefore,
              },
              alias,
            );
      if (branch.kind === 'walk') {
        conditions.push({
          sql: `${alias}.${REPLICA_COLUMN.name} = :month_${alias}`,
          name: `month_${alias}`,
          value: branch.month,
        });
      }
      return {
        alias,
        conditions,
        walk: seek && this.walkConditions(sort, seek, alias),
        index: branch.kind === 'walk' ? walkedIndex : sortedIndex,
      };
    });
    return {
      key: `merge|${parts.map(({ conditions }) => presentIn(conditions)).join(';')}`,
      values: {
        ...Object.assign(
          {},
          ...parts.map(({ conditions, walk }) => ({
            ...valuesOf(conditions),
            ...(walk && valuesOf([walk.bound, ...walk.terms])),
          })),
        ),
        branchLimit: offset + limit,
      } as QueryValues,
      build: () => {
        let parameters: ObjectLiteral = { branchLimit: offset + limit };
        const selects = parts.map(({ alias, conditions, walk, index }) => {
          const part = this.matching(conditions, alias);
          if (walk) this.seeking(part, walk);
          this.sorted(part, alias, order).select(`${alias}.id`, 'id');
          for (const { field } of order)
            if (field !== 'orderId') part.addSelect(`${alias}.${SORT_COLUMNS[field]}`, field);
          if (index) part.useIndex([index]);
          parameters = { ...parameters, ...part.getParameters() };
          return `(${part.getQuery()} LIMIT :branchLimit)`;
        });
        const merged = order
          .map(({ field, direction }) => `u.${field === 'orderId' ? 'id' : field} ${direction}`)
          .join(', ');
        return { sql: `SELECT u.id AS id FROM (${selects.join(' UNION ALL ')}) u ORDER BY ${merged}`, parameters };
      },
    };
  }

  private seeking(query: SelectQueryBuilder<Order>, walk: { bound: Condition; terms: Condition[] }): void {
    query.andWhere(walk.bound.sql, valuesOf([walk.bound]));
    query.andWhere(`(${walk.terms.map(({ sql }) => sql).join(' OR ')})`, valuesOf(walk.terms));
  }

  /**
   * Exact. Filtered by member or concert, a COUNT(*) over that index range is
   * small. Otherwise it sums the per-day totals (a few thousand rows instead
   * of a million) and the changes the triggers appended that are not folded
   * into them yet (OrderCountFolding), and counts only the partial first and
   * last days from `orders`. One statement, so one snapshot: a fold moves
   * changes into the totals in one transaction, and the sum is the same on
   * either side of it.
   */
  async count(filters: OrderFilters, session: ReadSession, walkBound?: number): Promise<number> {
    return (await this.counted(filters, { withTable: false, walkBound }, session)).matching;
  }

  /** The count and, in the same statement, the other sizes the planner weighs for these filters. */
  async sizes(filters: OrderFilters, session: ReadSession, walkBound?: number): Promise<MatchSizes> {
    const wanted = this.plannerFor(session.catalog)?.sizesWanted(filters) ?? {
      table: false,
      range: false,
      span: false,
    };
    return this.counted(
      filters,
      { withTable: wanted.table, withRange: wanted.range, withSpan: wanted.span, walkBound },
      session,
    );
  }

  private async counted(filters: OrderFilters, options: CountOptions, session: ReadSession): Promise<MatchSizes> {
    const [row] = await this.run<Array<Record<string, number | string | null>>>(
      'count',
      this.countStatement(filters, options),
      session,
    );
    const sizes: MatchSizes = { matching: 0 };
    const { [SPAN_COLUMNS.first]: first, [SPAN_COLUMNS.last]: last, ...counts } = row ?? {};
    // An empty table has no span: every order placed since is then in the range's open part.
    if (first != null && last != null) {
      sizes.span = {
        first: storedDateTimeToEpochMs(first as Date | string),
        last: storedDateTimeToEpochMs(last as Date | string),
      };
    }
    for (const [column, value] of Object.entries(counts)) {
      if (column === RANGE_COLUMN) sizes.range = Number(value ?? 0);
      else if (column === NEWER_THAN_WALK_COLUMN) sizes.matching -= Number(value ?? 0);
      else if (TABLE_TOTAL_COLUMNS.includes(column)) sizes.table = (sizes.table ?? 0) + Number(value ?? 0);
      else sizes.matching += Number(value ?? 0);
    }
    return sizes;
  }

  private countStatement(filters: OrderFilters, options: CountOptions): [string, unknown[]] {
    if (filters.userId !== undefined || filters.concertId !== undefined) return this.countRows(filters, options);
    const { createdFrom: from, createdBefore: before } = filters;
    const firstWholeDay = from === undefined ? undefined : Math.ceil(from / DAY_MS) * DAY_MS;
    const afterWholeDays = before === undefined ? undefined : Math.floor(before / DAY_MS) * DAY_MS;
    if (firstWholeDay !== undefined && afterWholeDays !== undefined && firstWholeDay >= afterWholeDays) {
      return this.countRows(filters, options);
    }

    const whole: Condition[] = [];
    if (filters.status !== undefined) whole.push({ sql: 'status = :status', name: 'status', value: filters.status });
    if (firstWholeDay !== undefined)
      whole.push({ sql: 'day >= :firstWholeDay', name: 'firstWholeDay', value: toDay(firstWholeDay) });
    if (afterWholeDays !== undefined)
      whole.push({ sql: 'day < :afterWholeDays', name: 'afterWholeDays', value: toDay(afterWholeDays) });
    const edge = (name: string, edgeFrom: number | undefined, edgeBefore: number | undefined) =>
      edgeFrom === undefined || edgeBefore === undefined || edgeFrom >= edgeBefore
        ? undefined
        : {
            name,
            conditions: this.conditions(
              { status: filters.status, createdFrom: edgeFrom, createdBefore: edgeBefore },
              name,
            ),
          };
    const edges = [edge('firstDay', from, firstWholeDay), edge('lastDay', afterWholeDays, before)].filter(
      (part) => part !== undefined,
    );
    const newer = this.newerThanWalk(filters, options.walkBound);
    const days = this.rangeDays(filters, options);
    const values = Object.assign(
      valuesOf(whole),
      ...edges.map((part) => valuesOf(part.conditions)),
      valuesOf(newer),
      valuesOf(days),
    ) as QueryValues;
    const key = `daily|${presentIn(whole)}|${edges.map((part) => `${part.name}:${presentIn(part.conditions)}`).join('|')}${countKey(options)}`;
    return this.shapes.statement(key, values, () => {
      const wholeDays = this.dataSource
        .createQueryBuilder()
        .from(DAILY_COUNTS_TABLE, 'd')
        .select('COALESCE(SUM(d.orders), 0)', 'whole');
      const unfolded = this.dataSource
        .createQueryBuilder()
        .from(COUNT_CHANGES_TABLE, 'c')
        .select('COALESCE(SUM(c.delta), 0)');
      for (const { sql, name, value } of whole) {
        wholeDays.andWhere(`d.${sql}`, { [name]: value });
        unfolded.andWhere(`c.${sql}`, { [name]: value });
      }
      wholeDays.addSelect(`(${unfolded.getQuery()})`, 'unfolded');
      // Moves net to zero over all statuses: only a status's count has any to add (into it) or subtract (out of it).
      if (filters.status !== undefined) {
        const moved = this.dataSource
          .createQueryBuilder()
          .from(COUNT_MOVES_TABLE, 'm')
          .select('COALESCE(SUM(CASE WHEN m.to_status = :status THEN 1 ELSE -1 END), 0)')
          .where('(m.to_status = :status OR m.from_status = :status)');
        for (const { sql, name, value } of whole) if (name !== 'status') moved.andWhere(`m.${sql}`, { [name]: value });
        wholeDays.addSelect(`(${moved.getQuery()})`, 'moved');
      }
      for (const part of edges) {
        const rows = this.matching(part.conditions, part.name).select('COUNT(*)');
        wholeDays.addSelect(`(${rows.getQuery()})`, part.name).setParameters(rows.getParameters());
      }
      return this.withCountOptions(wholeDays, options, newer, days);
    });
  }

  private countRows(filters: OrderFilters, options: CountOptions): [string, unknown[]] {
    const conditions = this.conditions(filters, 'o');
    const newer = this.newerThanWalk(filters, options.walkBound);
    const days = this.rangeDays(filters, options);
    return this.shapes.statement(
      `count|${presentIn(conditions)}${countKey(options)}`,
      { ...valuesOf(conditions), ...valuesOf(newer), ...valuesOf(days) },
      () => this.withCountOptions(this.matching(conditions, 'o').select('COUNT(*)', 'total'), options, newer, days),
    );
  }

  /**
   * The orders a walk leaves out, those placed after it began: matching the
   * filters, with an id past its bound. Subtracted from the count, this
   * counts the walk's orders as they are now, without giving up the per-day
   * totals; the ids past the bound are a short range of the primary key.
   */
  private newerThanWalk(filters: OrderFilters, walkBound: number | undefined): Condition[] {
    if (walkBound === undefined) return [];
    return [{ sql: 'w.id > :walkBound_w', name: 'walkBound_w', value: walkBound }, ...this.conditions(filters, 'w')];
  }

  /**
   * The whole days the date range touches, for the planner's estimate of how many orders it holds: the per-day
   * totals alone (changes not folded yet and the edges' exact hours left out), as cheap as an estimate should be.
   */
  private rangeDays(filters: OrderFilters, { withRange }: CountOptions): Condition[] {
    if (!withRange) return [];
    const days: Condition[] = [];
    if (filters.createdFrom !== undefined)
      days.push({ sql: 'r.day >= :rangeFirstDay', name: 'rangeFirstDay', value: toDay(filters.createdFrom) });
    if (filters.createdBefore !== undefined)
      days.push({ sql: 'r.day <= :rangeLastDay', name: 'rangeLastDay', value: toDay(filters.createdBefore - 1) });
    return days;
  }

  private withCountOptions<T extends ObjectLiteral>(
    query: SelectQueryBuilder<T>,
    { withTable, withSpan }: CountOptions,
    newer: Condition[],
    days: Condition[],
  ): SelectQueryBuilder<T> {
    if (withSpan) {
      // Each an end of the creation-time index: one step into it, whatever the table's size.
      for (const [aggregate, column] of [
        ['MIN', SPAN_COLUMNS.first],
        ['MAX', SPAN_COLUMNS.last],
      ] as const) {
        const end = this.dataSource.createQueryBuilder(Order, column).select(`${aggregate}(${column}.createdAt)`);
        query.addSelect(`(${end.getQuery()})`, column);
      }
    }
    if (newer.length > 0) {
      const rows = this.matching(newer, 'w').select('COUNT(*)');
      query.addSelect(`(${rows.getQuery()})`, NEWER_THAN_WALK_COLUMN).setParameters(rows.getParameters());
    }
    if (days.length > 0) {
      const range = this.dataSource
        .createQueryBuilder()
        .from(DAILY_COUNTS_TABLE, 'r')
        .select('COALESCE(SUM(r.orders), 0)');
      for (const { sql, name, value } of days) range.andWhere(sql, { [name]: value });
      query.addSelect(`(${range.getQuery()})`, RANGE_COLUMN).setParameters(range.getParameters());
    }
    return withTable ? this.withTableTotal(query) : query;
  }

  /** The whole table's count as the unfiltered listing counts it: every day's total and every change not folded. */
  private withTableTotal<T extends ObjectLiteral>(query: SelectQueryBuilder<T>): SelectQueryBuilder<T> {
    const [wholeDays, unfolded] = TABLE_TOTAL_COLUMNS;
    return query
      .addSelect(`(SELECT COALESCE(SUM(t.orders), 0) FROM ${DAILY_COUNTS_TABLE} t)`, wholeDays)
      .addSelect(`(SELECT COALESCE(SUM(u.delta), 0) FROM ${COUNT_CHANGES_TABLE} u)`, unfolded);
  }

  async findSeats(orderIds: number[], session: ReadSession): Promise<SeatRow[]> {
    if (orderIds.length === 0) return [];
    // The number of ids is part of the shape: a page holds at most 100.
    const statement = this.shapes.statement(`seats|${orderIds.length}`, { orderIds }, () =>
      this.dataSource
        .createQueryBuilder(OrderSeat, 's')
        .select('s.orderId', 'orderId')
        .addSelect('s.seatPriceId', 'seatPriceId')
        .addSelect('s.price', 'price')
        .where('s.orderId IN (:...orderIds)', { orderIds })
        .orderBy('s.orderId', 'ASC')
        .addOrderBy('s.seatPriceId', 'ASC'),
    );
    return this.run<SeatRow[]>('seats', statement, session);
  }

  /**
   * Runs a shaped statement on the request's connection, timed and traced as
   * its kind, through the session (which starts none once the request's
   * deadline has passed, and gives up on a server that stopped answering).
   */
  private run<T>(kind: ListingStatement, [sql, parameters]: [string, unknown[]], session: ReadSession): Promise<T> {
    const { runner } = session;
    return this.statements.run(kind, runner, () =>
      session.statement(() => runner.query(sql, parameters) as Promise<T>),
    );
  }

  private sorted(query: SelectQueryBuilder<Order>, alias: string, sort: SortKey[]): SelectQueryBuilder<Order> {
    for (const { field, direction } of sort) {
      query.addOrderBy(`${alias}.${SORT_COLUMNS[field]}`, direction);
    }
    return query;
  }

  /**
   * The walk's bound, and one term per sort key, to be joined by OR: equal on
   * every key before it, past the boundary on this one. Each term is a range
   * of an index that holds the keys in order, which MariaDB and SQLite both
   * read as such (a row comparison `(a, b) < (?, ?)` holds only for one
   * direction on every key).
   */
  private walkConditions(sort: SortKey[], seek: Seek, alias: string): { bound: Condition; terms: Condition[] } {
    const column = (field: SortField) => `${alias}.${SORT_COLUMNS[field]}`;
    const parameter = (index: number) => `seek${index}_${alias}`;
    const terms = sort.map(({ field, direction }, index): Condition => {
      const ascending = (direction === 'ASC') === (seek.direction === 'after');
      const equalBefore = sort.slice(0, index).map((key, before) => `${column(key.field)} = :${parameter(before)}`);
      const past = `${column(field)} ${ascending ? '>' : '<'} :${parameter(index)}`;
      return {
        sql: `(${[...equalBefore, past].join(' AND ')})`,
        name: parameter(index),
        value: TIME_FIELDS.has(field) ? toStoredDateTime(Number(seek.key[index])) : seek.key[index],
      };
    });
    const bound = { sql: `${alias}.id <= :walkBound_${alias}`, name: `walkBound_${alias}`, value: seek.bound };
    return { bound, terms };
  }

  /** The filters present, in a fixed order; parameters are named after the alias. */
  private conditions(filters: OrderFilters, alias: string): Condition[] {
    const conditions: Condition[] = [];
    const add = (property: keyof Order, operator: string, name: string, value: unknown) =>
      conditions.push({ sql: `${alias}.${property} ${operator} :${name}_${alias}`, name: `${name}_${alias}`, value });
    if (filters.userId !== undefined) add('userId', '=', 'userId', filters.userId);
    if (filters.concertId !== undefined) add('concertId', '=', 'concertId', filters.concertId);
    if (filters.status !== undefined) add('status', '=', 'status', filters.status);
    if (filters.createdFrom !== undefined) add('createdAt', '>=', 'createdFrom', toStoredDateTime(filters.createdFrom));
    if (filters.createdBefore !== undefined)
      add('createdAt', '<', 'createdBefore', toStoredDateTime(filters.createdBefore));
    return conditions;
  }

  private matching(conditions: Condition[], alias: string): SelectQueryBuilder<Order> {
    const query = this.dataSource.createQueryBuilder(Order, alias);
    for (const { sql, name, value } of conditions) query.andWhere(sql, { [name]: value });
    return query;
  }
}
