import { createConnection, type Connection, type ResultSetHeader, type RowDataPacket } from 'mysql2/promise';
import { randomSource } from '../../src/orders/seeding/order-generator';

/** The sale's concert: one concert that every writer orders for, as during a real on-sale. */
const SALE_CONCERT = 9_000_001;
const SEAT_PRICE = 55_000;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** What a sale's writers did: orders placed and paid, and the transactions that failed, by error code. */
export interface SaleTally {
  placed: number;
  paid: number;
  failures: Record<string, number>;
}

/**
 * One order service's connection during a ticket sale (docs/API.md §7): it places an order (the order row and two
 * seats, one transaction), then pays it (status and `updated_at`, a second transaction), each with `workMs` of other
 * work held inside, until `until`. `paced`, when given, is awaited before each order: a sale below full speed.
 */
async function placeAndPay(
  opened: Connection,
  {
    workMs,
    until,
    random,
    paced,
    reconnect,
  }: {
    workMs: number;
    until: number;
    random: () => number;
    paced?: () => Promise<void>;
    reconnect: () => Promise<Connection | undefined>;
  },
  tally: SaleTally,
): Promise<Connection | undefined> {
  let connection: Connection | undefined = opened;
  const inTransaction = async (work: (connection: Connection) => Promise<number | void>): Promise<number | void> => {
    if (connection === undefined) return undefined;
    try {
      await connection.query('BEGIN');
      const result = await work(connection);
      if (workMs > 0) await sleep(workMs);
      await connection.query('COMMIT');
      return result;
    } catch (error) {
      const { code = 'other', fatal, errno } = error as { code?: string; fatal?: boolean; errno?: number };
      tally.failures[code] = (tally.failures[code] ?? 0) + 1;
      // A lost server, or one turned read-only (1290): the writer goes where writes go now, as an order service would.
      if (fatal === true || errno === READ_ONLY) {
        connection.destroy();
        connection = undefined;
      } else await connection.query('ROLLBACK').catch(() => undefined);
      return undefined;
    }
  };
  while (Date.now() < until) {
    await paced?.();
    if (Date.now() >= until) break;
    connection ??= await reconnect();
    const orderId = await inTransaction(async (connection) => {
      const [placed] = await connection.query<ResultSetHeader>(
        `INSERT INTO orders (user_id, concert_id, total_price, status, created_at, updated_at)
         VALUES (?, ?, ?, 'PAYMENT_PENDING', UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))`,
        [1 + Math.floor(random() * 50_000), SALE_CONCERT, 2 * SEAT_PRICE],
      );
      const seat = 1 + Math.floor(random() * 1_000_000);
      await connection.query('INSERT INTO order_seats (order_id, seat_price_id, price) VALUES (?, ?, ?), (?, ?, ?)', [
        placed.insertId,
        seat,
        SEAT_PRICE,
        placed.insertId,
        seat + 1,
        SEAT_PRICE,
      ]);
      return placed.insertId;
    });
    if (orderId === undefined) continue;
    if (Date.now() < until) tally.placed += 1;
    const paid = await inTransaction(async (connection) => {
      await connection.query(
        `UPDATE orders SET status = 'PAYMENT_COMPLETED', updated_at = UTC_TIMESTAMP(3) WHERE id = ?`,
        [orderId],
      );
      return 1;
    });
    if (paid !== undefined && Date.now() < until) tally.paid += 1;
  }
  return connection;
}

/** MariaDB's and MySQL's ER_OPTION_PREVENTS_STATEMENT: the server runs with read_only. */
const READ_ONLY = 1290;
/** How long a writer without a server waits before it tries again. */
const RECONNECT_MS = 100;

export interface SaleOptions {
  connections: number;
  /** Other work held inside each transaction, in milliseconds. */
  workMs?: number;
  seconds: number;
  /** Orders placed per second by all writers together; as fast as the server takes them without it. */
  ordersPerSecond?: number;
  /** Counted into as the sale goes, for a caller that follows it; a tally of its own otherwise. */
  tally?: SaleTally;
}

/**
 * A sale on the server at `port`: `connections` writers placing and paying orders for `seconds`. Given a function,
 * the port is asked again whenever a writer lost its server: the writers follow a failover.
 */
export async function runSale(
  port: number | (() => number),
  database: string,
  { connections, workMs = 0, seconds, ordersPerSecond, tally = { placed: 0, paid: 0, failures: {} } }: SaleOptions,
): Promise<SaleTally & { seconds: number }> {
  const portNow = typeof port === 'number' ? () => port : port;
  const connect = () =>
    createConnection({ host: '127.0.0.1', port: portNow(), user: 'root', database, connectTimeout: 60_000 });
  const reconnect = async (): Promise<Connection | undefined> => {
    await sleep(RECONNECT_MS);
    return connect().catch(() => undefined);
  };
  const opened: Connection[] = [];
  // In groups: hundreds of handshakes at once on two busy cores can outlast a connect timeout.
  while (opened.length < connections) {
    const group = Math.min(32, connections - opened.length);
    opened.push(...(await Promise.all(Array.from({ length: group }, connect))));
  }
  const started = Date.now();
  const until = started + seconds * 1000;
  // One schedule for all writers: the n-th order of the sale may start n / ordersPerSecond seconds in.
  let scheduled = 0;
  const paced =
    ordersPerSecond === undefined
      ? undefined
      : () => {
          // Orders a lost server kept from being placed are not made up in a burst once writes go elsewhere.
          scheduled = Math.max(scheduled, Math.floor(((Date.now() - started - 1000) * ordersPerSecond) / 1000));
          const at = started + (scheduled * 1000) / ordersPerSecond;
          scheduled += 1;
          return sleep(Math.max(0, at - Date.now()));
        };
  // Each writer catches its own statements' failures: it ends with the connection it holds then, if any.
  const last = await Promise.all(
    opened.map((connection, index) =>
      placeAndPay(connection, { workMs, until, random: randomSource(index + 1), paced, reconnect }, tally),
    ),
  );
  await Promise.all(last.flatMap((connection) => (connection === undefined ? [] : [connection.end()])));
  return { ...tally, seconds };
}

/** Orders planted per statement: one transaction each on the primary, and one for the replica to apply. */
const PLANT_CHUNK = 100_000;

/**
 * Brings the table to hold `orders` orders of a sale that has ended, as `runSale` leaves them but without taking
 * the hours it would: every order paid, of the sale's concert, with two seats, and the newest ids, creation and
 * update times (placed 2 ms apart, up to now). Plants only what is missing, so a kept pair is planted once.
 */
export async function plantSale(primary: Connection, orders: number, members: number): Promise<number> {
  const [[held]] = await primary.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM orders WHERE concert_id = ?', [
    SALE_CONCERT,
  ]);
  const missing = orders - Number(held.n);
  for (let planted = 0; planted < missing; planted += PLANT_CHUNK) {
    const chunk = Math.min(PLANT_CHUNK, missing - planted);
    const [[newest]] = await primary.query<RowDataPacket[]>('SELECT COALESCE(MAX(id), 0) AS id FROM orders');
    await primary.query('BEGIN');
    await primary.query(
      `INSERT INTO orders (user_id, concert_id, total_price, status, created_at, updated_at)
       SELECT 1 + (seq * 7919) % ?, ?, ?, 'PAYMENT_COMPLETED', placed, placed + INTERVAL 1 SECOND
       FROM (SELECT seq, UTC_TIMESTAMP(3) - INTERVAL ((? - seq) * 2000) MICROSECOND AS placed FROM seq_1_to_${chunk}) s`,
      [members, SALE_CONCERT, 2 * SEAT_PRICE, chunk],
    );
    await primary.query(
      `INSERT INTO order_seats (order_id, seat_price_id, price)
       SELECT o.id, 2 * o.id + s.seq, ? FROM orders o JOIN seq_1_to_2 s WHERE o.id > ?`,
      [SEAT_PRICE, newest.id],
    );
    await primary.query('COMMIT');
  }
  return Math.max(0, missing);
}
