import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { toStoredDateTime } from '../../common/time/local-time';
import { COUNT_CHANGES_TABLE, COUNT_MOVES_TABLE, DAILY_COUNTS_TABLE } from '../counting/daily-counts';
import { SORT_COLUMNS } from '../index-fit';
import type { OrderFilters, RangeBounds } from '../model';
import { DAY_MS, parametersOf, shapesOf, toDay, type Condition, type ConditionShape } from './statement-parts';

// Where a walk's matches lie in its first sort column, read with its counts (docs/adr/0020).

/** The columns of a count statement that hold where every match lies in a column, for the planner. */
export const BOUNDS_READ_COLUMNS = { lowest: 'lowestBound', highest: 'highestBound' } as const;

/** A day as a number, the days since 1970-01-01: what a bound by creation time is read as, in either dialect. */
export const dayNumber = (day: string) => `DATEDIFF(${day}, '1970-01-01')`;

/** How the bounds of a field are read, each an aggregate over the rows of one table (`alias`). */
interface BoundedField {
  /** The lowest and highest over the totals read. */
  lowest: (alias: string) => string;
  highest: (alias: string) => string;
  /** The lowest (`MIN`) or highest (`MAX`) over the counting rows read, which widen the totals'. */
  counted: (aggregate: 'MIN' | 'MAX', alias: string) => string;
  /** The totals' columns that may be missing (a total folded before docs/adr/0020's migration). */
  kept?: { lowest: string; highest: string };
}

const keptBy = (lowest: string, highest: string, counted: string): BoundedField => ({
  lowest: (t) => `MIN(${t}.${lowest})`,
  highest: (t) => `MAX(${t}.${highest})`,
  counted: (aggregate, c) => `${aggregate}(${c}.${counted})`,
  kept: { lowest, highest },
});

const BOUNDED: Record<RangeBounds['field'], BoundedField> = {
  orderId: keptBy('first_id', 'last_id', 'order_id'),
  concertId: keptBy('lowest_concert_id', 'highest_concert_id', 'concert_id'),
  createdAt: {
    lowest: (t) => dayNumber(`MIN(${t}.day)`),
    highest: (t) => dayNumber(`MAX(${t}.day)`),
    counted: (aggregate, c) => dayNumber(`${aggregate}(${c}.day)`),
  },
};

/** Every day the range touches and the status: the (day, status)s holding every match, and the unfolded rows. */
export function touchedDays(filters: OrderFilters, statusColumn = 'status'): Condition[] {
  const touched: Condition[] = [];
  if (filters.status !== undefined)
    touched.push({ sql: `${statusColumn} = :boundsStatus`, name: 'boundsStatus', value: filters.status });
  if (filters.createdFrom !== undefined)
    touched.push({ sql: 'day >= :boundsFirstDay', name: 'boundsFirstDay', value: toDay(filters.createdFrom) });
  if (filters.createdBefore !== undefined)
    touched.push({ sql: 'day <= :boundsLastDay', name: 'boundsLastDay', value: toDay(filters.createdBefore - 1) });
  return touched;
}

/** The days a range touches as a statement's shape holds them: in the totals and changes, and in the moves. */
export interface TouchedDaysShape {
  field: RangeBounds['field'];
  touched: ConditionShape[];
  touchedMoves: ConditionShape[];
}

export const touchedDaysShapeOf = (field: RangeBounds['field'], filters: OrderFilters): TouchedDaysShape => ({
  field,
  touched: shapesOf(touchedDays(filters)),
  touchedMoves: shapesOf(touchedDays(filters, 'to_status')),
});

/** The lowest and highest `field` among the matches' (day, status)s and the unfolded rows, in one pass. */
export function withDayBounds<T extends ObjectLiteral>(
  query: SelectQueryBuilder<T>,
  { field, touched, touchedMoves }: TouchedDaysShape,
): void {
  const { lowest, highest, counted, kept } = BOUNDED[field];
  const where = (alias: string, first: string[], moves = false) =>
    [...first, ...(moves ? touchedMoves : touched).map(({ sql }) => `${alias}.${sql}`)].join(' AND ') || '1 = 1';
  const unknown = kept ? `MAX(CASE WHEN b.${kept.lowest} IS NULL OR b.${kept.highest} IS NULL THEN 1 ELSE 0 END)` : '0';
  // A total of none holds no order but those the unfolded rows bring; a row taking an order away is left out.
  const sources = [
    `SELECT ${lowest('b')} AS low, ${highest('b')} AS high, ${unknown} AS unknown FROM ${DAILY_COUNTS_TABLE} b WHERE ${where('b', kept ? ['b.orders > 0'] : [])}`,
    `SELECT ${counted('MIN', 'c')}, ${counted('MAX', 'c')}, 0 FROM ${COUNT_CHANGES_TABLE} c WHERE ${where('c', ['c.delta >= 0'])}`,
    `SELECT ${counted('MIN', 'm')}, ${counted('MAX', 'm')}, 0 FROM ${COUNT_MOVES_TABLE} m WHERE ${where('m', [], true)}`,
  ];
  const known = (aggregate: string) => `CASE WHEN MAX(u.unknown) = 1 THEN NULL ELSE ${aggregate} END`;
  query
    .innerJoin(
      `(SELECT ${known('MIN(u.low)')} AS lowest, ${known('MAX(u.high)')} AS highest FROM (${sources.join(' UNION ALL ')}) u)`,
      'rb',
      '1 = 1',
    )
    .addSelect('MAX(rb.lowest)', BOUNDS_READ_COLUMNS.lowest)
    .addSelect('MAX(rb.highest)', BOUNDS_READ_COLUMNS.highest)
    .setParameters(parametersOf(touched));
}

/** The bounds a count statement's row holds: creation time's read as day numbers, the first day's start and the next. */
export function dayBoundsOf(
  field: RangeBounds['field'],
  lowest: number | string | Date | null | undefined,
  highest: number | string | Date | null | undefined,
): RangeBounds {
  const valueOf = (bound: number | string | Date, daysAfter: number) =>
    field === 'createdAt' ? (Number(bound) + daysAfter) * DAY_MS : Number(bound);
  return {
    field,
    ...(lowest != null && { lowest: valueOf(lowest, 0) }),
    ...(highest != null && { highest: valueOf(highest, 1) }),
  };
}

/** Where every match lies in the sort's column, as conditions the walked index reads as its range's ends. */
export function boundConditions(bounds: RangeBounds | undefined, alias: string): Condition[] {
  if (!bounds) return [];
  const { field, lowest, highest } = bounds;
  const column = `${alias}.${SORT_COLUMNS[field]}`;
  // Creation time's highest is the start of the day after the last: an order of that last day's end lies before it.
  const [value, below] = field === 'createdAt' ? [toStoredDateTime, '<'] : [(bound: number) => bound, '<='];
  const conditions: Condition[] = [];
  if (lowest !== undefined)
    conditions.push({ sql: `${column} >= :lowestBound_${alias}`, name: `lowestBound_${alias}`, value: value(lowest) });
  if (highest !== undefined)
    conditions.push({
      sql: `${column} ${below} :highestBound_${alias}`,
      name: `highestBound_${alias}`,
      value: value(highest),
    });
  return conditions;
}
