import type { OrderRow } from './model';

/** A row of `orders` as the page statement returns it, for the listing's unit specs: member 7's paid order, its
 * times stored text as SQLite returns them; `overrides` sets what a spec is about. */
export const orderRow = (id: number, overrides: Partial<OrderRow> = {}): OrderRow => ({
  id,
  userId: 7,
  concertId: 3,
  totalPrice: 120.5,
  status: 'PAYMENT_COMPLETED',
  createdAt: '2026-03-09 15:00:00.999',
  updatedAt: '2026-03-09 15:30:00.000',
  ...overrides,
});
