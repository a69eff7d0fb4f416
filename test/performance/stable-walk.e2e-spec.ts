import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createConnection, type Connection } from 'mysql2/promise';
import { generateOrders } from '../../src/orders/seeding/order-generator';
import { writeOrders } from '../../src/orders/seeding/order-writer';
import { linksOf } from '../support/assertions/link-header';
import { writeLikeASale } from '../support/data/sale';
import { freshMysqlDatabase, mysqlEnvironment, type MysqlTarget } from '../support/app/test-database';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { adminToken } from '../support/app/tokens';
import { api } from '../support/app/api-client';

const PAGES = 2_000;
const SIZE = 5;
const WRITERS = 4;
const DAY_MS = 86_400_000;

/**
 * docs/API.md §13's promise where it matters: an administrator follows `next`
 * through 2,000 pages while order services place, pay, re-date and delete
 * orders. The sale's new orders are created now, which puts them in the
 * middle of the list, on both sides of where the walk stands; by offset they
 * would push elements onto later pages (repeats), and their deletion pull
 * elements back (skips).
 */
describe('a walk of 2,000 pages through the links during a sale, on MariaDB', () => {
  let target: MysqlTarget;
  let context: TestApp;

  beforeAll(async () => {
    target = await freshMysqlDatabase('stable_walk');
    context = await startTestApp({ ...mysqlEnvironment(target), RATE_LIMIT_PER_MINUTE: '0' });
    // Spread over the 30 days around now, so that orders created now sort in the middle of the walk.
    const endMs = Date.now() + 15 * DAY_MS;
    await writeOrders(
      context.dataSource,
      generateOrders({ orders: PAGES * SIZE + 500, members: 50, concerts: 20, days: 30, endMs, seed: 2026 }),
    );
  }, 120_000);

  afterAll(async () => {
    await context?.close();
  });

  it('repeats no order and skips none that existed when it began, none of the writers failing', async () => {
    const existing = (await context.dataSource.query<Array<{ id: number }>>('SELECT id FROM orders')).map(({ id }) =>
      Number(id),
    );
    const connections: Connection[] = await Promise.all(
      Array.from({ length: WRITERS }, () =>
        createConnection({
          host: target.host,
          port: target.port,
          user: target.user,
          password: target.password,
          database: target.database,
        }),
      ),
    );
    let walking = true;
    const seen: number[] = [];
    let pages = 0;
    let placedDuringWalk = 0;
    const get = (target: string) => api(context.server, adminToken()).get(target);
    try {
      // The walk begins with its first page; the sale writes from then on.
      let response = await get(`/orders?size=${SIZE}`);
      const writers = Promise.all(
        connections.map((connection, index) =>
          writeLikeASale(connection, 500 + index, {
            stopped: () => !walking,
            // Within the last hour: among the orders already listed, ahead of the walk and behind it.
            createdAt: (random) => Date.now() - Math.floor(random() * 3_600_000),
          }),
        ),
      );
      const walk = (async () => {
        for (;;) {
          expect(response.status).toBe(200);
          seen.push(...(response.body as { elements: Array<{ orderId: number }> }).elements.map((e) => e.orderId));
          pages += 1;
          const next = linksOf(response.headers.link).next;
          if (!next) break;
          response = await get(next);
        }
      })();
      await walk.finally(() => (walking = false));
      // Any writer's error rejects this and fails the test.
      await writers;
      const [{ placed }] = await context.dataSource.query<Array<{ placed: number }>>(
        'SELECT COUNT(*) AS placed FROM orders WHERE id > ?',
        [Math.max(...existing)],
      );
      placedDuringWalk = Number(placed);
    } finally {
      walking = false;
      await Promise.all(connections.map((connection) => connection.end()));
    }

    expect(pages).toBeGreaterThanOrEqual(PAGES);
    // The sale really ran alongside: orders were placed (and some of them deleted or re-dated) while the walk went on.
    expect(placedDuringWalk).toBeGreaterThan(100);
    expect(new Set(seen).size).toBe(seen.length);
    // The writers touch only orders they placed, so every order that existed kept its sort key: each is seen once,
    // and nothing placed during the walk joins it.
    expect([...seen].sort((a, b) => a - b)).toEqual([...existing].sort((a, b) => a - b));
  }, 300_000);
});
