import type { Connection, ResultSetHeader } from 'mysql2/promise';
import { randomSource } from '../../../src/orders/seeding/order-generator';

const STATUSES = ['PAYMENT_PENDING', 'PAYMENT_COMPLETED', 'CANCELLED', 'REFUNDED'];
const stored = (epochMs: number) => new Date(epochMs).toISOString().slice(0, 23).replace('T', ' ');

export interface SalePlan {
  /** How many transactions to run; without it, until `stopped` says so. */
  operations?: number;
  stopped?: () => boolean;
  /** The `created_at` of a placed order, epoch milliseconds, from the writer's random source. */
  createdAt: (random: () => number) => number;
}

/**
 * One order service's connection during a sale: it places orders and then
 * pays, cancels, re-dates across a midnight or deletes only its own, as real
 * services do, so that whatever makes two writers wait for each other or
 * deadlock can only come from what the listing added to the tables. One
 * transaction in ten is abandoned: what it appended must vanish with it.
 * Orders are placed at the times `plan.createdAt` draws; re-dating moves one
 * 20 minutes away from noon, across midnight when it was near one.
 */
export async function writeLikeASale(connection: Connection, seed: number, plan: SalePlan): Promise<void> {
  const random = randomSource(seed);
  const own: number[] = [];
  const transaction = async (work: () => Promise<void>) => {
    await connection.beginTransaction();
    await work();
    if (random() < 0.1) await connection.rollback();
    else await connection.commit();
  };
  for (let done = 0; plan.operations === undefined ? !plan.stopped?.() : done < plan.operations; done += 1) {
    const roll = random();
    const order = own[Math.floor(random() * own.length)];
    if (roll < 0.35 || order === undefined) {
      await transaction(async () => {
        const created = plan.createdAt(random);
        const [placed] = await connection.query<ResultSetHeader>(
          `INSERT INTO orders (user_id, concert_id, total_price, status, created_at, updated_at)
           VALUES (?, 9001, 110000, 'PAYMENT_PENDING', ?, ?)`,
          [1 + Math.floor(random() * 50), stored(created), stored(created)],
        );
        await connection.query(
          'INSERT INTO order_seats (order_id, seat_price_id, price) VALUES (?, 1, 55000), (?, 2, 55000)',
          [placed.insertId, placed.insertId],
        );
        own.push(placed.insertId);
      });
    } else if (roll < 0.65) {
      await transaction(async () => {
        await connection.query('UPDATE orders SET status = ?, updated_at = UTC_TIMESTAMP(3) WHERE id = ?', [
          STATUSES[Math.floor(random() * STATUSES.length)],
          order,
        ]);
      });
    } else if (roll < 0.85) {
      await transaction(async () => {
        await connection.query(
          `UPDATE orders SET created_at = IF(TIME(created_at) >= '12:00:00',
             created_at + INTERVAL 20 MINUTE, created_at - INTERVAL 20 MINUTE) WHERE id = ?`,
          [order],
        );
      });
    } else {
      await transaction(async () => {
        await connection.query('DELETE FROM orders WHERE id = ?', [order]);
      });
    }
  }
}

