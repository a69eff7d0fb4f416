import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type ObjectLiteral, type SelectQueryBuilder } from 'typeorm';
import { storedDateTimeToEpochMs } from '../../common/time/local-time';
import { QueryShapes, type QueryValues } from '../../database/query-shapes';
import { COUNT_CHANGES_TABLE, COUNT_MOVES_TABLE, DAILY_COUNTS_TABLE } from '../counting/daily-counts';
import type { OrderFilters, RangeBounds } from '../model';
import { Order } from '../order.entity';
import type { MatchSizes } from '../query-plan';
import {
  BOUNDS_READ_COLUMNS,
  dayBoundsOf,
  touchedDays,
  touchedDaysShapeOf,
  withDayBounds,
  type TouchedDaysShape,
} from './day-bounds';
import {
  conditionsOf,
  DAY_MS,
  matching,
  shapesOf,
  toDay,
  valuesOf,
  type Condition,
  type ConditionShape,
} from './statement-parts';

/** The columns of a count statement that hold the whole table's count, not the matching orders'. */
const TABLE_TOTAL_COLUMNS = ['tableWholeDays', 'tableUnfolded'];
/** The column of a count statement that holds the matching orders a walk leaves out, to be subtracted. */
const NEWER_THAN_WALK_COLUMN = 'newerThanWalk';
/** The column of a count statement that holds about how many orders the date range holds, for the planner. */
const RANGE_COLUMN = 'rangeOrders';
/** The columns of a count statement that hold when the oldest and newest orders were placed, for a month merge. */
const SPAN_COLUMNS = { first: 'firstCreated', last: 'lastCreated' } as const;
export interface CountOptions {
  /** Also sum the whole table, for the planner. */
  withTable: boolean;
  /** Also sum the whole days the date range touches, whatever else is filtered, for the planner. */
  withRange?: boolean;
  /** Also read when the oldest and newest orders were placed, for the planner. */
  withSpan?: boolean;
  /** Count only the orders a walk with this bound includes. */
  newestOrderId?: number;
  /** Also read where every match lies in this column (no member or concert: the totals'; docs/adr/0020). */
  bounds?: RangeBounds['field'];
}

/** The other sizes a count statement reads besides its matches, as its shape holds them. */
interface SizesShape {
  withTable: boolean;
  withSpan: boolean;
  newer: ConditionShape[];
  days: ConditionShape[];
}

/** A count from the per-day totals and the unfolded rows (no member or concert): everything its SQL depends on. */
interface DailyCountShape extends SizesShape {
  statement: 'count';
  kind: 'daily';
  whole: ConditionShape[];
  status: boolean;
  edges: Array<{ name: string; conditions: ConditionShape[] }>;
  bounds?: TouchedDaysShape;
}

/** A count of the matching rows themselves (a member's or a concert's orders, or a range within a day). */
interface RowCountShape extends SizesShape {
  statement: 'count';
  kind: 'rows';
  conditions: ConditionShape[];
}

/** The whole days a date range covers, and the per-day totals' conditions for them and the status. */
export function wholeDaysOf(filters: OrderFilters): {
  firstWholeDay?: number;
  afterWholeDays?: number;
  whole: Condition[];
} {
  const { createdFrom: from, createdBefore: before } = filters;
  const firstWholeDay = from === undefined ? undefined : Math.ceil(from / DAY_MS) * DAY_MS;
  const afterWholeDays = before === undefined ? undefined : Math.floor(before / DAY_MS) * DAY_MS;
  const whole: Condition[] = [];
  if (filters.status !== undefined) whole.push({ sql: 'status = :status', name: 'status', value: filters.status });
  if (firstWholeDay !== undefined)
    whole.push({ sql: 'day >= :firstWholeDay', name: 'firstWholeDay', value: toDay(firstWholeDay) });
  if (afterWholeDays !== undefined)
    whole.push({ sql: 'day < :afterWholeDays', name: 'afterWholeDays', value: toDay(afterWholeDays) });
  return { firstWholeDay, afterWholeDays, whole };
}

/** The count statements: exact, and with the other sizes the planner weighs where asked. */
@Injectable()
export class CountStatements {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly shapes: QueryShapes,
  ) {}

  statement(filters: OrderFilters, options: CountOptions): [string, unknown[]] {
    if (filters.userId !== undefined || filters.concertId !== undefined) return this.countRows(filters, options);
    const { createdFrom: from, createdBefore: before } = filters;
    const { firstWholeDay, afterWholeDays, whole } = wholeDaysOf(filters);
    if (firstWholeDay !== undefined && afterWholeDays !== undefined && firstWholeDay >= afterWholeDays) {
      return this.countRows(filters, options);
    }

    const edge = (name: string, edgeFrom: number | undefined, edgeBefore: number | undefined) =>
      edgeFrom === undefined || edgeBefore === undefined || edgeFrom >= edgeBefore
        ? undefined
        : {
            name,
            conditions: conditionsOf(
              { status: filters.status, createdFrom: edgeFrom, createdBefore: edgeBefore },
              name,
            ),
          };
    const edges = [edge('firstDay', from, firstWholeDay), edge('lastDay', afterWholeDays, before)].filter(
      (part) => part !== undefined,
    );
    const newer = newerThanWalk(filters, options.newestOrderId);
    const days = rangeDays(filters, options);
    const touched = options.bounds ? touchedDays(filters) : [];
    const values = Object.assign(
      valuesOf(whole),
      ...edges.map((part) => valuesOf(part.conditions)),
      valuesOf(newer),
      valuesOf(days),
      valuesOf(touched),
    ) as QueryValues;
    const shape: DailyCountShape = {
      statement: 'count',
      kind: 'daily',
      whole: shapesOf(whole),
      status: filters.status !== undefined,
      edges: edges.map(({ name, conditions }) => ({ name, conditions: shapesOf(conditions) })),
      bounds: options.bounds && touchedDaysShapeOf(options.bounds, filters),
      ...sizesShapeOf(options, newer, days),
    };
    return this.shapes.known(shape, values) ?? this.shapes.laidOut(shape, this.buildDaily(shape), values);
  }

  private buildDaily({ whole, status, edges, bounds, ...sizes }: DailyCountShape) {
    const wholeDays = this.dataSource
      .createQueryBuilder()
      .from(DAILY_COUNTS_TABLE, 'd')
      .select('COALESCE(SUM(d.orders), 0)', 'whole');
    const unfolded = this.dataSource
      .createQueryBuilder()
      .from(COUNT_CHANGES_TABLE, 'c')
      .select('COALESCE(SUM(c.delta), 0)');
    for (const { sql, name } of whole) {
      wholeDays.andWhere(`d.${sql}`, { [name]: undefined });
      unfolded.andWhere(`c.${sql}`, { [name]: undefined });
    }
    wholeDays.addSelect(`(${unfolded.getQuery()})`, 'unfolded');
    // Moves net to zero over all statuses: only a status's count has any to add (into it) or subtract (out of it).
    if (status) {
      const moved = this.dataSource
        .createQueryBuilder()
        .from(COUNT_MOVES_TABLE, 'm')
        .select('COALESCE(SUM(CASE WHEN m.to_status = :status THEN 1 ELSE -1 END), 0)')
        .where('(m.to_status = :status OR m.from_status = :status)');
      for (const { sql, name } of whole) if (name !== 'status') moved.andWhere(`m.${sql}`, { [name]: undefined });
      wholeDays.addSelect(`(${moved.getQuery()})`, 'moved');
    }
    for (const part of edges) {
      const rows = matching(this.dataSource, part.conditions, part.name).select('COUNT(*)');
      wholeDays.addSelect(`(${rows.getQuery()})`, part.name).setParameters(rows.getParameters());
    }
    if (bounds) withDayBounds(wholeDays, bounds);
    return this.withSizes(wholeDays, sizes);
  }

  private countRows(filters: OrderFilters, options: CountOptions): [string, unknown[]] {
    const conditions = conditionsOf(filters, 'o');
    const newer = newerThanWalk(filters, options.newestOrderId);
    const days = rangeDays(filters, options);
    const shape: RowCountShape = {
      statement: 'count',
      kind: 'rows',
      conditions: shapesOf(conditions),
      ...sizesShapeOf(options, newer, days),
    };
    const values = { ...valuesOf(conditions), ...valuesOf(newer), ...valuesOf(days) };
    return this.shapes.known(shape, values) ?? this.shapes.laidOut(shape, this.buildRows(shape), values);
  }

  private buildRows({ conditions, ...sizes }: RowCountShape) {
    return this.withSizes(matching(this.dataSource, conditions, 'o').select('COUNT(*)', 'total'), sizes);
  }

  private withSizes<T extends ObjectLiteral>(
    query: SelectQueryBuilder<T>,
    { withTable, withSpan, newer, days }: SizesShape,
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
      const rows = matching(this.dataSource, newer, 'w').select('COUNT(*)');
      query.addSelect(`(${rows.getQuery()})`, NEWER_THAN_WALK_COLUMN).setParameters(rows.getParameters());
    }
    if (days.length > 0) {
      const range = this.dataSource
        .createQueryBuilder()
        .from(DAILY_COUNTS_TABLE, 'r')
        .select('COALESCE(SUM(r.orders), 0)');
      for (const { sql, name } of days) range.andWhere(sql, { [name]: undefined });
      query.addSelect(`(${range.getQuery()})`, RANGE_COLUMN).setParameters(range.getParameters());
    }
    return withTable ? withTableTotal(query) : query;
  }
}

/** The orders a walk leaves out, those placed after it began: matching the filters, with an id past its bound. */
function newerThanWalk(filters: OrderFilters, newestOrderId: number | undefined): Condition[] {
  if (newestOrderId === undefined) return [];
  return [
    { sql: 'w.id > :newestOrderId_w', name: 'newestOrderId_w', value: newestOrderId },
    ...conditionsOf(filters, 'w'),
  ];
}

/** The whole days the range touches, from the per-day totals alone: as cheap as the planner's estimate should be. */
function rangeDays(filters: OrderFilters, { withRange }: CountOptions): Condition[] {
  if (!withRange) return [];
  const days: Condition[] = [];
  if (filters.createdFrom !== undefined)
    days.push({ sql: 'r.day >= :rangeFirstDay', name: 'rangeFirstDay', value: toDay(filters.createdFrom) });
  if (filters.createdBefore !== undefined)
    days.push({ sql: 'r.day <= :rangeLastDay', name: 'rangeLastDay', value: toDay(filters.createdBefore - 1) });
  return days;
}

const sizesShapeOf = ({ withTable, withSpan }: CountOptions, newer: Condition[], days: Condition[]): SizesShape => ({
  withTable,
  withSpan: withSpan === true,
  newer: shapesOf(newer),
  days: shapesOf(days),
});

function withTableTotal<T extends ObjectLiteral>(query: SelectQueryBuilder<T>): SelectQueryBuilder<T> {
  const [wholeDays, unfolded] = TABLE_TOTAL_COLUMNS;
  return query
    .addSelect(`(SELECT COALESCE(SUM(t.orders), 0) FROM ${DAILY_COUNTS_TABLE} t)`, wholeDays)
    .addSelect(`(SELECT COALESCE(SUM(u.delta), 0) FROM ${COUNT_CHANGES_TABLE} u)`, unfolded);
}

/** The sizes a count statement's row holds: the matches, and the table's, the range's and the span where asked. */
export function sizesOf(
  row: Record<string, number | string | Date | null> | undefined,
  boundsOf?: RangeBounds['field'],
): MatchSizes {
  const sizes: MatchSizes = { matching: 0 };
  const {
    [SPAN_COLUMNS.first]: first,
    [SPAN_COLUMNS.last]: last,
    [BOUNDS_READ_COLUMNS.lowest]: lowest,
    [BOUNDS_READ_COLUMNS.highest]: highest,
    ...counts
  } = row ?? {};
  if (boundsOf) sizes.bounds = dayBoundsOf(boundsOf, lowest, highest);
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
