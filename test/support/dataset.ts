import type { DataSource } from 'typeorm';
import { randomSource, type GeneratedOrder } from '../../src/database/seeding/order-generator';
import { writeOrders } from '../../src/database/seeding/order-writer';
import type { OrderStatusCode } from '../../src/orders/order-status';

export type TestOrder = GeneratedOrder & { id: number };

const SEOUL_OFFSET_MS = 9 * 3_600_000;

/** Epoch ms of a wall-clock time in Asia/Seoul (UTC+9 all year, no daylight saving since 1988). */
export const seoul = (year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number =>
  Date.UTC(year, month - 1, day, hour, minute, second, ms) - SEOUL_OFFSET_MS;

/** How the contract shows a stored time: Seoul wall clock, truncated to the second. */
export const seoulText = (epochMs: number): string => new Date(epochMs + SEOUL_OFFSET_MS).toISOString().slice(0, 19);

export const MEMBERS = [1, 2, 3, 4, 5, 6];
export const MEMBER_WITHOUT_ORDERS = 777;
export const CONCERTS = 12;
export const STATUSES: OrderStatusCode[] = ['PAYMENT_PENDING', 'PAYMENT_COMPLETED', 'CANCELLED', 'REFUNDED'];
/** Several orders share this creation time to the millisecond, so only the orderId tie-breaker orders them. */
export const TIED_CREATED_AT = seoul(2026, 6, 15, 12, 0, 0, 500);
/** Orders sit on both sides of these Seoul midnights, to the millisecond. */
export const BOUNDARY_DAY = { year: 2026, month: 3, day: 10 };

const PRICES = [55000, 77000, 99000, 120.5, 0.01, 33333.33, 150000];

type NewOrder = Omit<TestOrder, 'id'>;

/** A random but reproducible set of orders, with the edge cases the contract cares about planted in it. */
export function buildDataset(seed: number, count = 480): NewOrder[] {
  const random = randomSource(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const yearStart = seoul(2026, 1, 1);
  const yearMs = seoul(2027, 1, 1) - yearStart;

  const order = (createdAtMs: number, overrides: Partial<NewOrder> = {}): NewOrder => {
    const seatCount = random() < 0.08 ? 0 : 1 + Math.floor(random() * 4);
    const firstSeat = 1 + Math.floor(random() * 90_000);
    // Shuffled ids: the API must sort seats itself rather than rely on insertion order.
    const seats = Array.from({ length: seatCount }, (_, index) => ({
      seatPriceId: firstSeat + index * 7,
      price: pick(PRICES),
    })).sort(() => random() - 0.5);
    const cents = seats.reduce((sum, seat) => sum + Math.round(seat.price * 100), 0);
    return {
      userId: pick(MEMBERS),
      concertId: 1 + Math.floor(random() * CONCERTS),
      totalPrice: cents / 100,
      status: pick(STATUSES),
      createdAtMs,
      updatedAtMs: createdAtMs + Math.floor(random() * 2 * 86_400_000),
      seats,
      ...overrides,
    };
  };

  const orders: NewOrder[] = [];
  for (let index = 0; index < count; index += 1) {
    orders.push(order(yearStart + Math.floor(random() * yearMs)));
  }
  for (let index = 0; index < 12; index += 1) orders.push(order(TIED_CREATED_AT));
  const { year, month, day } = BOUNDARY_DAY;
  for (const createdAtMs of [
    seoul(year, month, day - 1, 23, 59, 59, 999),
    seoul(year, month, day, 0, 0, 0, 0),
    seoul(year, month, day, 0, 0, 0, 1),
    seoul(year, month, day, 23, 59, 59, 0),
    seoul(year, month, day, 23, 59, 59, 999),
    seoul(year, month, day + 1, 0, 0, 0, 0),
  ]) {
    orders.push(order(createdAtMs, { userId: 1 }));
  }
  orders.push(order(seoul(2026, 8, 1, 9, 30, 0, 0), { seats: [], totalPrice: 0, userId: 2 }));
  orders.push(
    order(seoul(2026, 8, 2, 9, 30, 0, 0), {
      seats: [{ seatPriceId: 5, price: 9_999_999_999.99 }],
      totalPrice: 9_999_999_999.99,
      userId: 3,
    }),
  );
  // Shuffled so that ids do not follow creation time.
  return orders.sort(() => random() - 0.5);
}

export async function seedDataset(dataSource: DataSource, seed: number): Promise<TestOrder[]> {
  const orders = buildDataset(seed);
  const ids = await writeOrders(dataSource, orders);
  return orders.map((order, index) => ({ ...order, id: ids[index] }));
}
