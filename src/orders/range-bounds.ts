import { effectiveOrder, fixedColumns } from './index-fit';
import type { OrderFilters, RangeBounds, SortKey } from './model';

/** docs/adr/0020, 0015: the column whose bounds a walk of this shape starts and stops at, read with its counts. */
export function boundedColumnOf(filters: OrderFilters, sort: readonly SortKey[]): RangeBounds['field'] | undefined {
  if (filters.userId !== undefined || filters.concertId !== undefined) return undefined;
  const [first] = effectiveOrder(sort, fixedColumns(filters));
  if (first?.column === 'id') return 'orderId';
  if (first?.column === 'concertId') return 'concertId';
  // A date range alone bounds its own walk by creation time; a status narrows it to the days it holds orders on.
  if (first?.column === 'createdAt' && filters.status !== undefined) return 'createdAt';
  return undefined;
}
