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
 * The index a sort by `column` walks: `column` then `id`, then the filtered columns no index leads with, so
 * that each entry is checked against them without reading its row. Every sort ends `orderId desc`, so `asc`
 * needs `id` stored descending (walked forwards), and `desc` the plain order (walked backwards).
 */
const replicaIndex = (
  column: IndexColumn,
  direction: 'asc' | 'desc',
  name: string,
  columns: IndexColumn[] = [column, 'id', ...(['createdAt', 'status'] as const).filter((c) => c !== column)],
): ReplicaIndex => {
  const descending: IndexColumn[] = direction === 'asc' ? ['id'] : [];
  return {
    name: `idx_replica_orders_${name}_${direction}`,
    columns,
    descending,
    sqlColumns: columns.map((c) => `${SQL_COLUMNS[c]}${descending.includes(c) ? ' DESC' : ''}`),
  };
};

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
const monthIndex = (direction: 'asc' | 'desc'): ReplicaIndex =>
  replicaIndex('createdMonth', direction, 'month_updated', ['createdMonth', 'updatedAt', 'id', 'createdAt', 'status']);

/**
 * docs/API.md §14: the indexes the listing reads through that the sale must
 * not pay for. Every payment rewrites `status` and `updated_at`, and every
 * order adds an entry to each index, so the primary holds none of these
 * (docs/adr/0010): the replicas apply the primary's rows by primary key and
 * may hold indexes of their own, created with the binary log off
 * (`applyReplicaIndexes`).
 *
 * One per sort field and direction (the primary's `idx_orders_created`,
 * walked backwards, reads `createdAt desc` in order too, but looks up each
 * order's status). A page of any of these sorts, filtered by status and
 * dates or not, is then the first entries of a walk: bounded by the page and
 * by how rare the matches are, not by the table.
 */
export const REPLICA_INDEXES: readonly ReplicaIndex[] = [
  replicaIndex('totalPrice', 'asc', 'total_price'),
  replicaIndex('totalPrice', 'desc', 'total_price'),
  replicaIndex('userId', 'asc', 'user'),
  replicaIndex('userId', 'desc', 'user'),
  replicaIndex('concertId', 'asc', 'concert'),
  replicaIndex('concertId', 'desc', 'concert'),
  replicaIndex('status', 'asc', 'status'),
  replicaIndex('status', 'desc', 'status'),
  replicaIndex('updatedAt', 'asc', 'updated'),
  replicaIndex('updatedAt', 'desc', 'updated'),
  replicaIndex('createdAt', 'asc', 'created'),
  // Newest first, as the primary's `idx_orders_created` reads it too, but with the status in the entry: the default
  // sort with a status filter, the back-office's commonest question, walks without a lookup per order.
  replicaIndex('createdAt', 'desc', 'created'),
  // A status's orders by price or by update time: its stretch of these walked in order, every entry a match. A walk
  // of the sort's own index passes every order of other statuses on its way, and a sale's orders, all paid, lie
  // together in both orders (the newest updates, its concert's prices): refunds by update time, newest first, passed
  // a sale's million paid orders before their first.
  replicaIndex('totalPrice', 'asc', 'status_total_price', ['status', 'totalPrice', 'id', 'createdAt']),
  replicaIndex('totalPrice', 'desc', 'status_total_price', ['status', 'totalPrice', 'id', 'createdAt']),
  replicaIndex('updatedAt', 'asc', 'status_updated', ['status', 'updatedAt', 'id', 'createdAt']),
  replicaIndex('updatedAt', 'desc', 'status_updated', ['status', 'updatedAt', 'id', 'createdAt']),
  // A member's or a concert's orders in any sort and with any filters, read from the entries alone: the busiest
  // member's tens of thousands of orders are sorted without a lookup each (docs/API.md §14, a member's page).
  {
    name: 'idx_replica_orders_user_cover',
    columns: ['userId', 'createdAt', 'updatedAt', 'totalPrice', 'concertId', 'status'],
    sqlColumns: ['user_id', 'created_at', 'updated_at', 'total_price', 'concert_id', 'status'],
  },
  {
    name: 'idx_replica_orders_concert_cover',
    columns: ['concertId', 'createdAt', 'updatedAt', 'totalPrice', 'userId', 'status'],
    sqlColumns: ['concert_id', 'created_at', 'updated_at', 'total_price', 'user_id', 'status'],
  },
  // A date range sorted by update time: update time follows creation time, so no walk of an index in that order
  // reaches a range's orders soon. The part of a month that a range covers less than half of (its edges), or a
  // range within one month, is read from entries holding the sort key and the status, and sorted.
  {
    name: 'idx_replica_orders_created_updated',
    columns: ['createdAt', 'updatedAt', 'id', 'status'],
    sqlColumns: ['created_at', 'updated_at', 'id', 'status'],
  },
  // The months such a range covers are merged from these instead, each walked in update order and stopped when
  // the page is full.
  monthIndex('asc'),
  monthIndex('desc'),
];
