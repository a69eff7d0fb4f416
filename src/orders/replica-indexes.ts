import type { OrderColumn, OrdersIndex } from './read-plan';

/** An index only the replicas hold: the entity's columns, and the table's own columns (and order) for its DDL. */
export interface ReplicaIndex extends OrdersIndex {
  sqlColumns: readonly string[];
}

const SQL_COLUMNS: Record<OrderColumn, string> = {
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
const replicaIndex = (column: OrderColumn, direction: 'asc' | 'desc', name: string): ReplicaIndex => {
  const columns: OrderColumn[] = [column, 'id', ...(['createdAt', 'status'] as const).filter((c) => c !== column)];
  const descending: OrderColumn[] = direction === 'asc' ? ['id'] : [];
  return {
    name: `idx_replica_orders_${name}_${direction}`,
    columns,
    descending,
    sqlColumns: columns.map((c) => `${SQL_COLUMNS[c]}${descending.includes(c) ? ' DESC' : ''}`),
  };
};

/**
 * docs/API.md §14: the indexes the listing reads through that the sale must
 * not pay for. Every payment rewrites `status` and `updated_at`, and every
 * order adds an entry to each index, so the primary holds none of these
 * (docs/adr/0010): the replicas apply the primary's rows by primary key and
 * may hold indexes of their own, created with the binary log off
 * (`applyReplicaIndexes`).
 *
 * One per sort field and direction that no index of the primary reads in
 * order (the primary's `idx_orders_created`, walked backwards, serves
 * `createdAt desc`). A page of any of these sorts, filtered by status and
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
  // reaches a range's orders soon; the range is read from entries holding the sort key and the status, and sorted.
  {
    name: 'idx_replica_orders_created_updated',
    columns: ['createdAt', 'updatedAt', 'id', 'status'],
    sqlColumns: ['created_at', 'updated_at', 'id', 'status'],
  },
];
