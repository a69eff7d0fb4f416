import type { IndexColumn, OrdersIndex } from './index-fit';

/** An index only the replicas hold: the entity's columns, and the table's own columns (and order) for its DDL. */
export interface ReplicaIndex extends OrdersIndex {
  sqlColumns: readonly string[];
}

const SQL_COLUMNS: Record<IndexColumn, string> = {
  createdMonth: 'created_month',
  id: 'id',
  userId: 'user_id',
  concertId: 'concert_id',
  totalPrice: 'total_price',
  status: 'status',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
};

/** Every index only the replicas hold is named so: `npm run migration:run` drops one of them that is no longer listed. */
export const REPLICA_INDEX_PREFIX = 'idx_replica_orders_';

const replicaIndex = (name: string, columns: IndexColumn[]): ReplicaIndex => ({
  name: `${REPLICA_INDEX_PREFIX}${name}`,
  columns,
  sqlColumns: columns.map((column) => SQL_COLUMNS[column]),
});
/** The index a sort by `column` walks either way: `column`, `id`, then the filtered columns, checked without rows. */
const sortIndex = (column: IndexColumn, name: string): ReplicaIndex =>
  replicaIndex(name, [column, 'id', ...(['createdAt', 'status'] as const).filter((c) => c !== column)]);

/** A column only the replicas hold: the month an order was placed in (UTC), derived from `created_at`. */
export const REPLICA_COLUMN = {
  name: SQL_COLUMNS.createdMonth,
  definition: 'MEDIUMINT UNSIGNED AS (EXTRACT(YEAR_MONTH FROM created_at)) STORED',
} as const;

/** Walked a month at a time in update order: a date range by `updatedAt` merges the first entries of each month. */
const MONTH_INDEX = replicaIndex('month_updated', ['createdMonth', 'updatedAt', 'id', 'createdAt', 'status']);

/** The indexes the listing reads through that the sale must not pay for. */
export const REPLICA_INDEXES: readonly ReplicaIndex[] = [
  sortIndex('totalPrice', 'total_price'),
  sortIndex('status', 'status'),
  sortIndex('updatedAt', 'updated'),
  // The default sort with a status filter, the back-office's commonest, walks here without a lookup per order.
  sortIndex('createdAt', 'created'),
  // A status's orders by price or by update time: its stretch of these walked in order, every entry a match.
  replicaIndex('status_total_price', ['status', 'totalPrice', 'id', 'createdAt']),
  replicaIndex('status_updated', ['status', 'updatedAt', 'id', 'createdAt']),
  // A member's or concert's orders in any sort and filters, from the entries alone, without a lookup each.
  replicaIndex('user_cover', ['userId', 'id', 'createdAt', 'updatedAt', 'totalPrice', 'concertId', 'status']),
  replicaIndex('concert_cover', ['concertId', 'id', 'createdAt', 'updatedAt', 'totalPrice', 'userId', 'status']),
  // A date range sorted by update time: no walk in that order reaches a range's orders soon.
  replicaIndex('created_updated', ['createdAt', 'updatedAt', 'id', 'status']),
  // The months such a range covers are merged from this, each walked in update order until the page is full.
  MONTH_INDEX,
];
