import { ORDER_STATUS_CODES, type OrderStatusCode } from '../order-status';

interface GeneratedSeat {
  seatPriceId: number;
  price: number;
}

export interface GeneratedOrder {
  userId: number;
  concertId: number;
  totalPrice: number;
  status: OrderStatusCode;
  createdAtMs: number;
  updatedAtMs: number;
  seats: GeneratedSeat[];
}

export interface GeneratorOptions {
  orders: number;
  members: number;
  concerts: number;
  /** Orders are spread over this many days before `endMs`. */
  days: number;
  endMs: number;
  seed: number;
}

/** mulberry32: small, fast and deterministic, so a seed always yields the same data. */
export function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEAT_PRICES = [33000, 55000, 77000, 99000, 132000, 154000, 198000];
const STATUS_WEIGHTS: Array<[OrderStatusCode, number]> = [
  ['PAYMENT_COMPLETED', 0.7],
  ['PAYMENT_PENDING', 0.1],
  ['CANCELLED', 0.12],
  ['REFUNDED', 0.08],
];

/** Realistic-looking orders: member activity is skewed (member 1 the most active, a long tail after), one to four
 * seats per order, and prices with cents now and then, as discounts produce. */
export function* generateOrders(options: GeneratorOptions): Generator<GeneratedOrder> {
  const random = randomSource(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const spanMs = options.days * 86_400_000;
  for (let index = 0; index < options.orders; index += 1) {
    // Squaring a uniform draw skews towards low ids: a few members place most orders.
    const userId = 1 + Math.floor(random() ** 2 * options.members);
    const concertId = 1 + Math.floor(random() * options.concerts);
    // One to four seats, 2.5 on average.
    const seatCount = 1 + Math.floor(random() * 4);
    const seatPriceBase = concertId * 10_000 + Math.floor(random() * 5_000);
    const seats: GeneratedSeat[] = [];
    for (let seat = 0; seat < seatCount; seat += 1) {
      const discounted = random() < 0.1;
      const listPrice = pick(SEAT_PRICES);
      seats.push({
        seatPriceId: seatPriceBase + seat,
        price: discounted ? Math.round(listPrice * 0.85 * 100 + 50) / 100 : listPrice,
      });
    }
    const roll = random();
    let cumulative = 0;
    const status = STATUS_WEIGHTS.find(([, weight]) => (cumulative += weight) >= roll)?.[0] ?? ORDER_STATUS_CODES[0];
    const createdAtMs = options.endMs - Math.floor(random() * spanMs);
    const updatedAtMs = status === 'PAYMENT_PENDING' ? createdAtMs : createdAtMs + Math.floor(random() * 3_600_000);
    yield {
      userId,
      concertId,
      totalPrice: Math.round(seats.reduce((sum, seat) => sum + seat.price * 100, 0)) / 100,
      status,
      createdAtMs,
      updatedAtMs,
      seats,
    };
  }
}
