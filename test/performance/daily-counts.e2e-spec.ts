import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createConnection, type Connection } from 'mysql2/promise';
import request from 'supertest';
import { randomSource } from '../../src/database/seeding/order-generator';
import { seedDataset } from '../support/dataset';
import { freshMysqlDatabase, mysqlEnvironment, type MysqlTarget } from '../support/test-database';
import { startTestApp, type TestApp } from '../support/test-app';
import { adminToken } from '../support/tokens';

const WORKERS = 8;
const OPERATIONS_PER_WORKER = 120;
const STATUSES = ['PAYMENT_PENDING', 'PAYMENT_COMPLETED', 'CANCELLED', 'REFUNDED'];

/**
 * The per-day totals behind COUNT(*) must stay exact while many connections
 * insert, re-date, re-status and delete orders at once, including
 * transactions that roll back. Checked against GROUP BY over `orders`, and
 * through the API against plain counts.
 */
describe('per-day order totals under concurrent writes on MariaDB', () => {
  let target: MysqlTarget;
  let context: TestApp;

  beforeAll(async () => {
    target = await freshMysqlDatabase('daily_counts');
    context = await startTestApp({ ...mysqlEnvironment(target), RATE_LIMIT_PER_MINUTE: '0' });
    await seedDataset(context.dataSource, 17);
  }, 60_000);

  afterAll(async () => {
    await context?.close();
  });

  const connect = () =>
    createConnection({
      host: target.host,
      port: target.port,
      user: target.user,
      password: target.password,
      database: target.database,
    });
  const randomTime = (random: () => number) =>
    new Date(Date.UTC(2026, 0, 1) + Math.floor(random() * 365 * 86_400_000))
      .toISOString()
      .slice(0, 23)
      .replace('T', ' ');

  async function operate(connection: Connection, random: () => number): Promise<void> {
    await connection.beginTransaction();
    const roll = random();
    const [[row]] = await connection.query<Array<{ id: number } & import('mysql2').RowDataPacket>>(
      'SELECT id FROM orders ORDER BY RAND() LIMIT 1',
    );
    if (roll < 0.4 || !row) {
      const [result] = await connection.query<import('mysql2').ResultSetHeader>(
        'INSERT INTO orders (user_id, concert_id, total_price, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
        [
          1 + Math.floor(random() * 9),
          1 + Math.floor(random() * 12),
          100,
          STATUSES[Math.floor(random() * 4)],
          randomTime(random),
          randomTime(random),
        ],
      );
      await connection.query('INSERT INTO order_seats (order_id, seat_price_id, price) VALUES (?, 1, 100)', [
        result.insertId,
      ]);
    } else if (roll < 0.6) {
      await connection.query('UPDATE orders SET status = ? WHERE id = ?', [STATUSES[Math.floor(random() * 4)], row.id]);
    } else if (roll < 0.8) {
      await connection.query('UPDATE orders SET created_at = ? WHERE id = ?', [randomTime(random), row.id]);
    } else {
      await connection.query('DELETE FROM orders WHERE id = ?', [row.id]);
    }
    // One transaction in ten is abandoned: its trigger updates must vanish with it.
    if (random() < 0.1) await connection.rollback();
    else await connection.commit();
  }

  async function worker(seed: number): Promise<void> {
    const connection = await connect();
    const random = randomSource(seed);
    try {
      for (let done = 0; done < OPERATIONS_PER_WORKER;) {
        try {
          await operate(connection, random);
          done += 1;
        } catch (error) {
          await connection.rollback();
          // Two writers updating the same days' totals can deadlock; like any client, retry.
          if ((error as { code?: string }).code !== 'ER_LOCK_DEADLOCK') throw error;
        }
      }
    } finally {
      await connection.end();
    }
  }

  it(`stay exact after ${WORKERS} × ${OPERATIONS_PER_WORKER} concurrent writes`, async () => {
    await Promise.all(Array.from({ length: WORKERS }, (_, index) => worker(index + 1)));
    const kept = await context.dataSource.query<Array<{ day: string; status: string; orders: number }>>(
      `SELECT DATE_FORMAT(day, '%Y-%m-%d') AS day, status, orders FROM order_daily_counts WHERE orders <> 0 ORDER BY day, status`,
    );
    const counted = await context.dataSource.query<Array<{ day: string; status: string; orders: number }>>(
      `SELECT DATE_FORMAT(DATE(created_at), '%Y-%m-%d') AS day, status, COUNT(*) AS orders FROM orders GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    expect(kept).toEqual(counted);
  }, 120_000);

  it.each([
    ['every order', '', ''],
    ['one status', 'orderStatus=CANCELLED', "WHERE status = 'CANCELLED'"],
    [
      'a range with partial first and last days',
      'startDate=2026-03-10T15:30:00&endDate=2026-07-02T08:00:00',
      "WHERE created_at >= '2026-03-10 06:30:00' AND created_at < '2026-07-01 23:00:01'",
    ],
    [
      'a status within a range',
      'orderStatus=REFUNDED&startDate=2026-02-01&endDate=2026-09-30',
      "WHERE status = 'REFUNDED' AND created_at >= '2026-01-31 15:00:00' AND created_at < '2026-09-30 15:00:00'",
    ],
  ])('answers totalElementCount for %s equal to COUNT(*)', async (_, query, where) => {
    const [{ total }] = await context.dataSource.query<Array<{ total: number }>>(
      `SELECT COUNT(*) AS total FROM orders ${where}`,
    );
    const response = await request(context.server)
      .get(`/orders?${query}`)
      .set('Authorization', `Bearer ${adminToken()}`);
    expect(response.status).toBe(200);
    expect((response.body as { totalElementCount: number }).totalElementCount).toBe(Number(total));
  });
});
