import { effectiveOrder, fixedColumns } from './index-fit';
import type { OrderFilters, RangeBounds, SortKey } from './model';

/**
 * How long ago a date range must have ended for its days to count as closed: orders are placed at the time they are
 * written, so none is placed into a closed day, and the hour leaves room for the writers' clocks (docs/adr/0014).
 */
export const CLOSED_AFTER_MS = 3_600_000;

/**
 * docs/adr/0014: the column whose bounds a walk of this shape starts and stops at, read with its counts: a closed date
 * range at `now` (no new order falls in it), without a member or concert (whose orders are counted from their own
 * index), sorted first by id or by concert. A walk in that order otherwise passes every newer order, a sale's among
 * them, before its first match.
 */
export function boundedColumnOf(
  filters: OrderFilters,
  sort: readonly SortKey[],
  now: number,
): RangeBounds['field'] | undefined {
  const closed = filters.createdBefore !== undefined && filters.createdBefore <= now - CLOSED_AFTER_MS;
  if (!closed || filters.userId !== undefined || filters.concertId !== undefined) return undefined;
  const [first] = effectiveOrder(sort, fixedColumns(filters));
  if (first?.column === 'id') return 'orderId';
  if (first?.column === 'concertId') return 'concertId';
  return undefined;
}
