import type { Order } from './order.entity';
import type { OrderFilters, SortField, SortKey } from './model';

// What an index of `orders` can do for a listing's shape: which columns a filter fixes or bounds, and whether an
// index holds them as one range, reads the sort's order, or holds what an entry is checked against.

/** A column of `orders`, by the entity's property name. */
export type OrderColumn = Exclude<keyof Order, 'seats'>;

/** Sort fields of the API → entity properties; the only way a client's text reaches ORDER BY. */
export const SORT_COLUMNS: Record<SortField, OrderColumn> = {
  orderId: 'id',
  userId: 'userId',
  concertId: 'concertId',
  totalPrice: 'totalPrice',
  status: 'status',
  createdAt: 'createdAt',
  updatedAt: 'updatedAt',
};

/** A column an index may hold: the entity's, or the month of creation that only the replicas hold (REPLICA_COLUMN). */
export type IndexColumn = OrderColumn | 'createdMonth';

/** A secondary index of `orders`, as the entity declares it; InnoDB appends the primary key to its entries. */
export interface OrdersIndex {
  name: string;
  columns: readonly IndexColumn[];
}

/** MySQL's name for the clustered index: reading by it is a walk in `id` order or a scan of the whole table. */
export const PRIMARY_KEY = 'PRIMARY';

/** A date range with one side open: a month merge then needs to know where the orders end. */
export const opensRange = (filters: OrderFilters): boolean =>
  (filters.createdFrom === undefined) !== (filters.createdBefore === undefined);

/** Either direction of update time: whether a month merge applies does not depend on it. */
export const sortByUpdate: readonly SortKey[] = [
  { field: 'updatedAt', direction: 'DESC' },
  { field: 'orderId', direction: 'DESC' },
];

/** Columns an equality filter fixes to one value. */
export function fixedColumns(filters: OrderFilters): IndexColumn[] {
  const fixed: IndexColumn[] = [];
  if (filters.userId !== undefined) fixed.push('userId');
  if (filters.concertId !== undefined) fixed.push('concertId');
  if (filters.status !== undefined) fixed.push('status');
  return fixed;
}

export function filterColumns(filters: OrderFilters): IndexColumn[] {
  const ranged = filters.createdFrom !== undefined || filters.createdBefore !== undefined;
  return ranged ? [...fixedColumns(filters), 'createdAt'] : fixedColumns(filters);
}

/**
 * The sort as the rows are ordered: keys on a fixed column order nothing, and nothing after `orderId` (unique)
 * does either. Every sort holds `orderId` (`parseSort` appends it), so the order ends there.
 */
export function effectiveOrder(sort: readonly SortKey[], fixed: readonly IndexColumn[]) {
  const order: Array<{ column: OrderColumn; direction: SortKey['direction'] }> = [];
  for (const { field, direction } of sort) {
    const column = SORT_COLUMNS[field];
    if (!fixed.includes(column)) order.push({ column, direction });
    if (column === 'id') break;
  }
  return order;
}

/**
 * The index begins with the columns the filters fix and then, if the filters bound a range, that range's
 * column: the matches are one contiguous range of it, and every entry read there is a match.
 */
export function holdsAsOneRange(
  index: OrdersIndex,
  fixed: readonly IndexColumn[],
  filtered: readonly IndexColumn[],
): boolean {
  const leading = index.columns.slice(0, filtered.length);
  return (
    fixed.every((column) => leading.slice(0, fixed.length).includes(column)) &&
    filtered.every((column) => leading.includes(column))
  );
}

/**
 * Columns whose order follows creation time: an order is updated after it is placed (in the bench data within the
 * hour). Walking such an index passes the orders created outside a date range in one stretch before reaching
 * the range's, rather than a share of them spread evenly; so a walk of it is costed as the whole of it, and does
 * not bound a date-filtered page. (Order ids follow creation time too where orders are inserted as they are placed;
 * the bench data's ids do not, docs/SCALING.md.)
 */
const FOLLOWS_CREATION: ReadonlyArray<IndexColumn> = ['updatedAt'];

/** Whether a walk of the index, past its first `fixedCount` columns, passes the dates' orders in one stretch. */
export function walksAcrossDates(index: OrdersIndex, filtered: readonly IndexColumn[], fixedCount = 0): boolean {
  return filtered.includes('createdAt') && FOLLOWS_CREATION.includes(index.columns[fixedCount]);
}

/**
 * The index begins with the columns the filters fix, reads the sort's order past them, and its entries hold the
 * other filters: one stretch of it, walked in order, yields the matches among entries checked without their rows.
 */
export function walksWithinFixed(
  index: OrdersIndex,
  fixed: readonly IndexColumn[],
  filtered: readonly IndexColumn[],
  order: ReadonlyArray<{ column: OrderColumn; direction: SortKey['direction'] }>,
): boolean {
  return (
    fixed.length > 0 &&
    holdsAsOneRange(index, fixed, fixed) &&
    readsInOrder(index, fixed, order) &&
    holdsAll(index, filtered)
  );
}

/** The index's entries hold every filtered column and every column of the order: read and sorted without rows. */
export function covers(
  index: OrdersIndex,
  filtered: readonly IndexColumn[],
  order: ReadonlyArray<{ column: OrderColumn }>,
): boolean {
  return holdsAll(index, filtered) && order.every(({ column }) => column === 'id' || index.columns.includes(column));
}

export function holdsAll(index: OrdersIndex, columns: readonly IndexColumn[]): boolean {
  return columns.every((column) => index.columns.includes(column));
}

/** The index leads with `createdAt` and the filters bound it, along with others that it does not hold. */
export function holdsDateRange(index: OrdersIndex, filtered: readonly IndexColumn[]): boolean {
  return index.columns[0] === 'createdAt' && filtered.includes('createdAt') && filtered.length > 1;
}

/**
 * Whether reading the index forwards or backwards yields the rows in `order`: past the columns the filters fix, its
 * columns (and then `id`) are the order's, all ascending read forwards or all descending read backwards.
 */
export function readsInOrder(
  index: OrdersIndex,
  fixed: readonly IndexColumn[],
  order: ReadonlyArray<{ column: OrderColumn; direction: SortKey['direction'] }>,
): boolean {
  const entryOrder = [...index.columns.slice(fixed.length), ...(index.columns.includes('id') ? [] : ['id' as const])];
  const walk = (direction: SortKey['direction']) =>
    order.every((key, position) => entryOrder[position] === key.column && key.direction === direction);
  return walk('ASC') || walk('DESC');
}
