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
  /** The highest order id at the time of reading, on each row of a page read without a cursor: a walk's bound. The
   * drivers return `MAX(id)` as they return a BIGINT: MySQL's as a string, SQLite's as a number. */
  newestOrderId?: number | string;
}

/** The fields a listing sorts by: a member's, and an administrator's, who may also sort by member. */
export const USER_SORT_FIELDS = ['orderId', 'concertId', 'totalPrice', 'status', 'createdAt', 'updatedAt'] as const;
export const ADMIN_SORT_FIELDS = [...USER_SORT_FIELDS, 'userId'] as const;
export type SortField = (typeof ADMIN_SORT_FIELDS)[number];
type SortDirection = 'ASC' | 'DESC';

export interface SortKey {
  field: SortField;
  direction: SortDirection;
}

/** `after` continues a walk forwards from a page's last element (`next`), `before` backwards from its first (`prev`). */
export type CursorDirection = 'after' | 'before';

/** A sort key's value as a walk compares it: ids, prices and times (epoch milliseconds) as numbers, the status code as text. */
export type SortValue = number | string;

/** Where a followed page starts, and what the walk it belongs to includes. */
export interface KeysetCursor {
  direction: CursorDirection;
  /** The boundary element's value of each sort key, in the sort's order, the appended `orderId` included. */
  key: SortValue[];
  /** The highest order id when the walk began: orders placed since then stay out of it. */
  bound: number;
}

/** Where every match lies in the sort's first column: a walk in that order starts and stops there (docs/adr/0020). */
export interface RangeBounds {
  field: 'orderId' | 'concertId' | 'createdAt';
  lowest?: number;
  highest?: number;
}

/** The formats of an export, each an operation of its own. */
export type ExportFormat = 'csv' | 'ndjson' | 'xlsx';
