import type { OrderStatusCode } from './order-status';

/** What a listing reads, as every part of the listing trades it. */
export interface OrderFilters {
  userId?: number;
  concertId?: number;
  status?: OrderStatusCode;
  /** Inclusive lower bound on `created_at`, epoch milliseconds. */
  createdFrom?: number;
  /** Exclusive upper bound on `created_at`, epoch milliseconds. */
  createdBefore?: number;
}

/** One row of `orders` as the page query returns it. */
export interface OrderRow {
  id: number;
  userId: number;
  concertId: number;
  totalPrice: number;
  status: string;
  createdAt: Date | string;
  updatedAt: Date | string;
  /** The highest order id at the time of reading, on each row of a page read without a seek: a walk's bound. */
  walkBound?: number;
}
