import type { DataSource } from 'typeorm';
import { randomSource } from '../../../src/orders/seeding/order-generator';

export type StatusCode = 'PAYMENT_PENDING' | 'PAYMENT_COMPLETED' | 'CANCELLED' | 'REFUNDED';

/** One order as the tests planted it: plain values, times as UTC epoch milliseconds. */
export interface TestOrder {
  id: number;
  userId: number;
  concertId: number;
  totalPrice: number;
  /** A code of docs/API.md §5, or one another service might store. */
  status: string;
  createdAtMs: number;
  updatedAtMs: number;
  seats: Array<{ seatPriceId: number; price: number }>;
}

const SEOUL_OFFSET_MS = 9 * 3_600_000;

/** Epoch ms of a wall-clock time in Asia/Seoul (UTC+9 all year, no daylight saving since 1988). */
export const seoul = (year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number =>
  Date.UTC(year, month - 1, day, hour, minute, second, ms) - SEOUL_OFFSET_MS;

/** How the contract shows a stored time: Seoul wall clock, truncated to the second. */
export const seoulText = (epochMs: number): string => new Date(epochMs + SEOUL_OFFSET_MS).toISOString().slice(0, 19);

export const MEMBERS = [1, 2, 3, 4, 5, 6];
export const MEMBER_WITHOUT_ORDERS = 777;
const CONCERTS = 12;
export const STATUSES: StatusCode[] = ['PAYMENT_PENDING', 'PAYMENT_COMPLETED', 'CANCELLED', 'REFUNDED'];
/** A status code §5 does not list, as another service might store it; shown as the code itself (§4). */
export const FOREIGN_STATUS = 'ON_HOLD';
export const FOREIGN_STATUS_MEMBER = 4;
/** Several orders share this creation time to the millisecond, so only the orderId tie-breaker orders them. */
const TIED_CREATED_AT = seoul(2026, 6, 15, 12, 0, 0, 500);
/** Orders sit on both sides of these Seoul midnights, to the millisecond. */
export const BOUNDARY_DAY = { year: 2026, month: 3, day: 10 };

const PRICES = [55000, 77000, 99000, 120.5, 0.01, 33333.33, 150000];

type NewOrder = Omit<TestOrder, 'id'>;

/** A random but reproducible set of orders, with the edge cases the contract cares about planted in it. */
export function buildDataset(seed: number, count = 480): TestOrder[] {
  // The seeder's generator: seeded, so every run plants the same orders. It only chooses inputs.
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
  orders.push(order(seoul(2026, 9, 9, 9, 9, 9, 9), { status: FOREIGN_STATUS, userId: FOREIGN_STATUS_MEMBER }));
  // Ids shuffled, so that they do not follow creation time.
  const ids = orders.map((_, index) => index + 1).sort(() => random() - 0.5);
  return orders.map((planted, index) => ({ id: ids[index], ...planted }));
}

/** `YYYY-MM-DD hh:mm:ss.mmm` in UTC: how docs/API.md §7 stores a time, readable by both databases. */
const utcDateTime = (epochMs: number): string => new Date(epochMs).toISOString().slice(0, 23).replace('T', ' ');

/**
 * Plants the orders with plain SQL written here, against the schema of
 * docs/API.md §7, so that nothing of the service (its writer, its time helpers)
 * stands between what the tests expect and what is stored.
 */
export async function plantOrders(dataSource: DataSource, orders: TestOrder[]): Promise<void> {
  for (let start = 0; start < orders.length; start += 200) {
    const batch = orders.slice(start, start + 200);
    await dataSource.query(
      `INSERT INTO orders (id, user_id, concert_id, total_price, status, created_at, updated_at) VALUES ${batch
        .map(() => '(?, ?, ?, ?, ?, ?, ?)')
        .join(', ')}`,
      batch.flatMap((order) => [
        order.id,
        order.userId,
        order.concertId,
        order.totalPrice,
        order.status,
        utcDateTime(order.createdAtMs),
        utcDateTime(order.updatedAtMs),
      ]),
    );
    const seats = batch.flatMap((order) => order.seats.map((seat) => [order.id, seat.seatPriceId, seat.price]));
    if (seats.length > 0) {
      await dataSource.query(
        `INSERT INTO order_seats (order_id, seat_price_id, price) VALUES ${seats.map(() => '(?, ?, ?)').join(', ')}`,
        seats.flat(),
      );
    }
  }
}

export async function seedDataset(dataSource: DataSource, seed: number): Promise<TestOrder[]> {
  const orders = buildDataset(seed);
  await plantOrders(dataSource, orders);
  return orders;
}
