import type { OrderStatusCode } from '../order-status';
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
  /** The request's parameters as sent, but `page`, for the `Link` header. */
  echoedParameters: Array<[name: string, value: string]>;
}
