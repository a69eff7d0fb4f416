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

/**
 * The index a sort by `column` walks, forwards for `asc` and backwards for `desc` (the tie-break `orderId` follows the
 * sort's direction): `column` then `id`, then the filtered columns no index leads with, so that each entry is
 * checked against them without reading its row.
 */
/** Every index only the replicas hold is named so: `npm run migration:run` drops one of them that is no longer listed. */
export const REPLICA_INDEX_PREFIX = 'idx_replica_orders_';

const replicaIndex = (name: string, columns: IndexColumn[]): ReplicaIndex => ({
  name: `${REPLICA_INDEX_PREFIX}${name}`,
  columns,
  sqlColumns: columns.map((column) => SQL_COLUMNS[column]),
});
const sortIndex = (column: IndexColumn, name: string): ReplicaIndex =>
  replicaIndex(name, [column, 'id', ...(['createdAt', 'status'] as const).filter((c) => c !== column)]);

/**
 * A column only the replicas hold: the month an order was placed in (UTC), derived from `created_at`. Row-based
 * replication applies the primary's columns by position and computes a replica's extra generated columns at the
 * end of the table; MariaDB 10.11 leaves an index on an extra VIRTUAL column with NULL entries for replicated
 * inserts (CHECK TABLE then reports it corrupt), so the column is STORED, which it computes and indexes correctly.
 */
export const REPLICA_COLUMN = {
  name: SQL_COLUMNS.createdMonth,
  definition: 'MEDIUMINT UNSIGNED AS (EXTRACT(YEAR_MONTH FROM created_at)) STORED',
} as const;

/**
 * The index a month's orders sorted by update time walk: one stretch of it per month, in update order, so that a
 * date range sorted by `updatedAt` is the merge of the first entries of each month it covers (docs/API.md §14).
 */
const MONTH_INDEX = replicaIndex('month_updated', ['createdMonth', 'updatedAt', 'id', 'createdAt', 'status']);

/**
 * docs/API.md §14: the indexes the listing reads through that the sale must
 * not pay for. Every payment rewrites `status` and `updated_at`, and every
 * order adds an entry to each index, so the primary holds none of these
 * (docs/adr/0010): the replicas apply the primary's rows by primary key and
 * may hold indexes of their own, created with the binary log off
 * (`applyReplicaIndexes`).
 *
 * One per sort field, walked either way (docs/adr/0017). A page of any of
 * these sorts, filtered by status and dates or not, is then the first
 * entries of a walk: bounded by the page and by how rare the matches are, not
 * by the table.
 */
export const REPLICA_INDEXES: readonly ReplicaIndex[] = [
  sortIndex('totalPrice', 'total_price'),
  sortIndex('status', 'status'),
  sortIndex('updatedAt', 'updated'),
  // The primary's `idx_orders_created` reads this order too, but looks up each order's status: the default sort with
  // a status filter, the back-office's commonest question, walks here without a lookup per order.
  sortIndex('createdAt', 'created'),
  // A status's orders by price or by update time: its stretch of these walked in order, every entry a match. A walk
  // of the sort's own index passes every order of other statuses on its way, and a sale's orders, all paid, lie
  // together in both orders (the newest updates, its concert's prices): refunds by update time, newest first, passed
  // a sale's million paid orders before their first.
  replicaIndex('status_total_price', ['status', 'totalPrice', 'id', 'createdAt']),
  replicaIndex('status_updated', ['status', 'updatedAt', 'id', 'createdAt']),
  // A member's or a concert's orders in any sort and with any filters, read from the entries alone: the busiest
  // member's tens of thousands of orders are sorted without a lookup each (docs/API.md §14, a member's page). Led
  // by `id` past the member or concert, each is also the sort index of `userId` or `concertId`, walked either way:
  // one index where two cost every write (docs/adr/0017).
  replicaIndex('user_cover', ['userId', 'id', 'createdAt', 'updatedAt', 'totalPrice', 'concertId', 'status']),
  replicaIndex('concert_cover', ['concertId', 'id', 'createdAt', 'updatedAt', 'totalPrice', 'userId', 'status']),
  // A date range sorted by update time: update time follows creation time, so no walk of an index in that order
  // reaches a range's orders soon. The part of a month that a range covers less than half of (its edges), or a
  // range within one month, is read from entries holding the sort key and the status, and sorted.
  replicaIndex('created_updated', ['createdAt', 'updatedAt', 'id', 'status']),
  // The months such a range covers are merged from this instead, each walked in update order and stopped when the
  // page is full.
  MONTH_INDEX,
];
