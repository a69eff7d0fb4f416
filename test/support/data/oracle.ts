import { seoulText, type TestOrder } from './dataset';

/**
 * An independent model of docs/API.md §1–§5, computed over the seeded orders in
 * memory: what the service should answer, derived without any of its code.
 */
/** The sortable fields of docs/API.md §3 a member may use; an administrator may also sort by userId. */
export const USER_SORT_FIELDS = ['orderId', 'concertId', 'totalPrice', 'status', 'createdAt', 'updatedAt'] as const;
export const ADMIN_SORT_FIELDS = [...USER_SORT_FIELDS, 'userId'] as const;
export type Field = (typeof ADMIN_SORT_FIELDS)[number];
export type Direction = 'asc' | 'desc';

export interface OracleQuery {
  role: 'USER' | 'ADMIN';
  callerId: number;
  page?: number;
  size?: number;
  sort?: Array<[Field, Direction]>;
  userId?: number;
  concertId?: number;
  status?: string;
  /** Inclusive bounds on createdAt, epoch ms. */
  fromMs?: number;
  toMs?: number;
}

const LABELS: Record<string, string> = {
  PAYMENT_PENDING: '결제 대기',
  PAYMENT_COMPLETED: '결제 완료',
  CANCELLED: '주문 취소',
  REFUNDED: '환불 완료',
};

const value = (order: TestOrder, field: Field): number | string =>
  ({
    orderId: order.id,
    userId: order.userId,
    concertId: order.concertId,
    totalPrice: order.totalPrice,
    status: order.status,
    createdAt: order.createdAtMs,
    updatedAt: order.updatedAtMs,
  })[field];

export function matching(orders: TestOrder[], query: OracleQuery): TestOrder[] {
  return orders.filter(
    (order) =>
      (query.role === 'ADMIN' || order.userId === query.callerId) &&
      (query.userId === undefined || order.userId === query.userId) &&
      (query.concertId === undefined || order.concertId === query.concertId) &&
      (query.status === undefined || order.status === query.status) &&
      (query.fromMs === undefined || order.createdAtMs >= query.fromMs) &&
      (query.toMs === undefined || order.createdAtMs <= query.toMs),
  );
}

export function sorted(orders: TestOrder[], sort: Array<[Field, Direction]> = [['createdAt', 'desc']]): TestOrder[] {
  // Ties are broken by orderId in the direction of the last key: a sort and its reverse are exact reverses.
  const keys: Array<[Field, Direction]> = sort.some(([field]) => field === 'orderId')
    ? sort
    : [...sort, ['orderId', sort[sort.length - 1][1]]];
  return [...orders].sort((a, b) => {
    for (const [field, direction] of keys) {
      const [x, y] = [value(a, field), value(b, field)];
      if (x !== y) return (x < y ? -1 : 1) * (direction === 'asc' ? 1 : -1);
    }
    return 0;
  });
}

function element(order: TestOrder, role: 'USER' | 'ADMIN'): Record<string, unknown> {
  return {
    orderId: order.id,
    ...(role === 'ADMIN' ? { userId: order.userId } : {}),
    concertId: order.concertId,
    seats: [...order.seats].sort((a, b) => a.seatPriceId - b.seatPriceId),
    totalPrice: order.totalPrice,
    // A code §5 does not list is shown as stored (§4).
    status: LABELS[order.status] ?? order.status,
    createdAt: seoulText(order.createdAtMs),
    updatedAt: seoulText(order.updatedAtMs),
  };
}

export function expectedPage(orders: TestOrder[], query: OracleQuery): Record<string, unknown> {
  const page = query.page ?? 1;
  const size = query.size ?? 20;
  const all = sorted(matching(orders, query), query.sort);
  const elements = all.slice((page - 1) * size, page * size).map((order) => element(order, query.role));
  const totalPages = Math.ceil(all.length / size);
  return {
    totalPages,
    totalElementCount: all.length,
    currentPage: page,
    currentElementCount: elements.length,
    perPageNumber: size,
    firstPage: page === 1,
    lastPage: page >= totalPages,
    hasNextPage: page < totalPages,
    hasPrevious: page > 1,
    elements,
  };
}
