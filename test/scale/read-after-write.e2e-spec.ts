import { afterAll, beforeAll, beforeEach, expect, it, jest } from '@jest/globals';
import type { Connection, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import type request from 'supertest';
import { migrateServers } from '../../src/cli/migrate-servers';
import { toDatabaseConfig } from '../../src/config/database.config';
import { validateEnvironment } from '../../src/config/environment';
import { DatabaseServers } from '../../src/database/database-servers';
import type { ServedBy } from '../../src/database/freshness';
import { Freshness } from '../../src/database/freshness';
import { startReplicatedMysql, REPLICATED_DATABASE, type ReplicatedMysql } from '../../launchers/replication';
import { waitFor } from '../../launchers/wait-for';
import { expectProblem } from '../support/assertions/problem';
import { buildDataset, plantOrders } from '../support/data/dataset';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { adminToken, userToken } from '../support/app/tokens';
import { api, withReason } from '../support/app/api-client';
import { describeReplicated } from '../support/jest/mariadb-only';

/** Below the planted orders: a sort by price is served only by the replica's own indexes, as at ten million orders. */
const LARGE = { DB_FULL_SORT_MAX_ORDERS: '10', RATE_LIMIT_PER_MINUTE: '0' };
/** The replica is held this far behind, within DB_REPLICA_MAX_LAG_S (5): by that rule alone it counts as fresh. */
const DELAY_S = 3;
const MEMBER = 4242;
const PAID = '결제 완료';

interface Element {
  orderId: number;
  status: string;
}

/**
 * docs/API.md §19 on a real MariaDB primary and replica: a page reflects every write the primary had committed when
 * its request came, or says it may not (`Data-Staleness`), and a writer's position (`Read-After-Gtid`) is honoured.
 */
describeReplicated('a member sees the order they have just paid for (docs/API.md §19)', () => {
  let pair: ReplicatedMysql;
  let app: TestApp;
  let writer: Connection;
  let served: Record<ServedBy, number>;

  /** What the router counted since `before`, by how it served. */
  const servedSince = (before: Record<ServedBy, number>): Partial<Record<ServedBy, number>> =>
    Object.fromEntries(
      Object.entries(served)
        .map(([by, count]): [string, number] => [by, count - before[by as ServedBy]])
        .filter(([, count]) => count !== 0),
    );
  const snapshot = () => ({ ...served });

  /** Places an order for the member and pays for it, as the ordering service does: two transactions on the primary. */
  const placeAndPay = async (): Promise<{ orderId: number; gtid: string }> => {
    const [placed] = await writer.query<ResultSetHeader>(
      `INSERT INTO orders (user_id, concert_id, total_price, status, created_at, updated_at)
         VALUES (?, 77, 110000, 'PAYMENT_PENDING', UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))`,
      [MEMBER],
    );
    await writer.query('INSERT INTO order_seats (order_id, seat_price_id, price) VALUES (?, 1, 55000), (?, 2, 55000)', [
      placed.insertId,
      placed.insertId,
    ]);
    await writer.query("UPDATE orders SET status = 'PAYMENT_COMPLETED', updated_at = UTC_TIMESTAMP(3) WHERE id = ?", [
      placed.insertId,
    ]);
    // The position of the payment's commit, as the ordering service would hand it to its client.
    const [[{ gtid }]] = await writer.query<RowDataPacket[]>('SELECT @@last_gtid AS gtid');
    return { orderId: placed.insertId, gtid: String(gtid) };
  };
  const paidIn = (response: request.Response, orderId: number) =>
    (response.body as { elements: Element[] }).elements.some(
      (element) => element.orderId === orderId && element.status === PAID,
    );
  const memberPage = (headers: Record<string, string> = {}) =>
    api(app.server, userToken(MEMBER)).get('/orders').set(headers);

  beforeAll(async () => {
    pair = await startReplicatedMysql();
    await plantOrders(pair.primaryDataSource, buildDataset(31, 300));
    await pair.root('primary').query(`ANALYZE TABLE ${REPLICATED_DATABASE}.orders`);
    await migrateServers(
      toDatabaseConfig(validateEnvironment({ ...pair.environment, DB_USERNAME: 'root', DB_PASSWORD: '' })),
      () => undefined,
    );
    await pair.waitInSync();
    writer = pair.root('primary');
    await writer.query(`USE ${REPLICATED_DATABASE}`);
    app = await startTestApp({ ...pair.environment, ...LARGE });
    served = app.app.get(Freshness).served;
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await pair?.stop();
  }, 60_000);

  beforeEach(async () => {
    await pair.setDelay(0);
    await pair.waitInSync();
    const [replica] = app.app.get(DatabaseServers).replicas;
    await waitFor('the replica to be healthy', () => Promise.resolve(replica.isHealthyReplica()));
  }, 30_000);

  it('reads a member’s page from a replica that has every write, at once, and knows nothing is missing', async () => {
    const before = snapshot();
    for (let probe = 0; probe < 5; probe += 1) {
      const response = await memberPage();
      expect(response.status).toBe(200);
      expect(response.headers['data-staleness']).toBeUndefined();
    }
    // From the replica, at once or after a wait for a commit of the primary's own (the count fold's): never the primary.
    const served = servedSince(before);
    expect(Object.keys(served).filter((by) => by !== 'replica' && by !== 'replica-after-wait')).toEqual([]);
    expect((served.replica ?? 0) + (served['replica-after-wait'] ?? 0)).toBe(5);
  });

  it('shows the order just paid for, paid, while the replica is held behind but counts as healthy', async () => {
    await pair.setDelay(DELAY_S);
    const [replica] = app.app.get(DatabaseServers).replicas;
    const before = snapshot();
    for (let probe = 0; probe < 5; probe += 1) {
      const { orderId } = await placeAndPay();
      const response = await memberPage();
      expect(response.status).toBe(200);
      expect(paidIn(response, orderId)).toBe(true);
      expect(response.headers['data-staleness']).toBeUndefined();
    }
    // The replica was tried, was behind, and the primary served once the wait's bound had passed.
    expect(replica.isHealthyReplica()).toBe(true);
    expect(servedSince(before)).toEqual({ 'primary-after-wait': 5 });
  }, 30_000);

  it('serves a writer’s position from the primary until the replica has applied it, then from the replica', async () => {
    await pair.setDelay(DELAY_S);
    const { orderId, gtid } = await placeAndPay();
    const before = snapshot();
    const atOnce = await memberPage({ 'Read-After-Gtid': gtid });
    expect(atOnce.status).toBe(200);
    expect(paidIn(atOnce, orderId)).toBe(true);
    expect(servedSince(before)).toEqual({ 'primary-after-wait': 1 });

    await pair.waitInSync();
    const later = snapshot();
    const applied = await memberPage({ 'Read-After-Gtid': gtid });
    expect(applied.status).toBe(200);
    expect(paidIn(applied, orderId)).toBe(true);
    expect(servedSince(later)).toEqual({ 'writer-position': 1 });
    // That write is there; not every write the primary had is shown to be.
    expect(Number(applied.headers['data-staleness'])).toBeGreaterThanOrEqual(1);
  }, 30_000);

  it('costs the primary no statement for writers’ positions the replica has applied', async () => {
    const writes = [];
    for (let write = 0; write < 10; write += 1) writes.push(await placeAndPay());
    await pair.waitInSync();
    const primary = app.app.get(DatabaseServers).primary;
    const primaryReads = jest.spyOn(primary, 'readVariable');
    const before = snapshot();
    const PAGES = 50;
    try {
      for (let page = 0; page < PAGES; page += 1) {
        const { orderId, gtid } = writes[page % writes.length];
        const response = await memberPage({ 'Read-After-Gtid': gtid });
        expect(response.status).toBe(200);
        expect(paidIn(response, orderId)).toBe(true);
      }
      // Every page from the replica; the primary's history read at most once a health round, not once a page.
      expect(servedSince(before)).toEqual({ 'writer-position': PAGES });
      expect(primaryReads.mock.calls.length / PAGES).toBeLessThanOrEqual(0.1);
    } finally {
      primaryReads.mockRestore();
    }
  }, 30_000);

  it('says a shape only the replica serves may be behind when the replica has not applied every write', async () => {
    await pair.setDelay(DELAY_S);
    await placeAndPay();
    const byPrice = await api(app.server, adminToken()).get('/orders?sort=totalPrice,desc&size=5');
    expect(byPrice.status).toBe(200);
    expect(Number(byPrice.headers['data-staleness'])).toBeGreaterThanOrEqual(1);
    // An export is never moved onto the primary: it waits for its replica, and says it may be behind.
    const before = snapshot();
    await placeAndPay();
    const exported = await api(app.server, adminToken()).get(withReason('/orders/export.ndjson?sort=createdAt,desc'));
    expect(exported.status).toBe(200);
    expect(Number(exported.headers['data-staleness'])).toBeGreaterThanOrEqual(1);
    expect(servedSince(before)).toEqual({ stale: 1 });
  }, 30_000);

  it('refuses a malformed position, one of another kind of server, and one ahead of the primary’s, naming the header', async () => {
    const [[{ position }]] = await writer.query<RowDataPacket[]>('SELECT @@global.gtid_binlog_pos AS position');
    const [domain, server, sequence] = String(position).split('-').map(Number);
    for (const sent of [
      'yesterday',
      '3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5',
      `${domain}-${server}-${sequence + 1000}`,
    ]) {
      const response = await memberPage({ 'Read-After-Gtid': sent });
      expect(expectProblem(response, 400, ['Read-After-Gtid'])).toMatchObject({ type: '/problems/invalid-parameters' });
    }
  });
});
