import type { OrderStatusCode } from '../order-status';
import type { Seek } from '../paging/continuation';
import type { SortKey } from './sort';

export interface OrderFilters {
  userId?: number;
  concertId?: number;
  status?: OrderStatusCode;
  /** Inclusive lower bound on `created_at`, epoch milliseconds. */
  createdFrom?: number;
  /** Exclusive upper bound on `created_at`, epoch milliseconds. */
  createdBefore?: number;
}

/** A validated listing request, independent of how it was transported. */
export interface ListOrdersQuery {
  page: number;
  size: number;
  sort: SortKey[];
  filters: OrderFilters;
  /** Where a followed link continues its walk; absent, the page is read by offset. */
  seek?: Seek;
  /**
   * What a continuation is bound to: the caller's variant (a member's id), the filters, the sort and the size.
   * Worked out on first use, since most requests neither carry a continuation nor write one for every link.
   */
  walkScope: () => string;
  /** The request's parameters as sent, but `page` and the continuations, for the `Link` header. */
  echoedParameters: Array<[name: string, value: string]>;
}
