import type { Order } from './order.entity';
import type { OrderFilters, SortField, SortKey } from './model';

// What an index of `orders` can do for a shape: hold its filters as one range, read its order, cover its checks.

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

/** The sort as rows are ordered: keys on a fixed column order nothing, nor anything after `orderId`. */
export function effectiveOrder(sort: readonly SortKey[], fixed: readonly IndexColumn[]) {
  const order: Array<{ column: OrderColumn; direction: SortKey['direction'] }> = [];
  for (const { field, direction } of sort) {
    const column = SORT_COLUMNS[field];
    if (!fixed.includes(column)) order.push({ column, direction });
    if (column === 'id') break;
  }
  return order;
}

/** The index leads with the fixed columns, then the bounded one: every entry of that one range is a match. */
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

/** Columns whose order follows creation time: an order is updated after it is placed. */
const FOLLOWS_CREATION: ReadonlyArray<IndexColumn> = ['updatedAt'];

/** Whether a walk of the index, past its first `fixedCount` columns, passes the dates' orders in one stretch. */
export function walksAcrossDates(index: OrdersIndex, filtered: readonly IndexColumn[], fixedCount = 0): boolean {
  return filtered.includes('createdAt') && FOLLOWS_CREATION.includes(index.columns[fixedCount]);
}

/** Leads with the fixed columns, reads the sort's order past them, and holds the other filters: walked without rows. */
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

/** Whether reading the index either way yields `order`: past the fixed columns, its columns and `id` are it. */
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
