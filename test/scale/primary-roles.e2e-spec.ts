import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Connection, ResultSetHeader } from 'mysql2/promise';
import type request from 'supertest';
import { DatabaseServers } from '../../src/database/database-servers';
import { startReplicatedMysql, REPLICATED_DATABASE, type ReplicatedMysql } from '../../launchers/replication';
import { waitFor } from '../../launchers/wait-for';
import { buildDataset, plantOrders } from '../support/data/dataset';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { userToken } from '../support/app/tokens';
import { api } from '../support/app/api-client';
import { describeReplicated } from '../support/jest/mariadb-only';

const MEMBER = 5151;
/** A role change is seen by the next background round (about one a second); this bounds the wait, it is no timing. */
const ROUNDS_MS = 5000;

interface Element {
  orderId: number;
}

/**
 * docs/API.md §20 on a real MariaDB primary and replica: the primary is the primary by what the servers say of
 * themselves. Set read-only, or beside a replica promoted as orchestrator does, it is never served as current: pages
 * come from the replica with `Data-Staleness`, and a write only the old primary holds is never shown as current.
 */
describeReplicated(
  'the configured primary is trusted only while the servers say it is the primary (docs/API.md §20)',
  () => {
    let pair: ReplicatedMysql;
    let app: TestApp;
    let servers: DatabaseServers;
    let primary: Connection;

    const memberPage = () => api(app.server, userToken(MEMBER)).get('/orders?size=100');
    const orderIds = (response: request.Response) =>
      (response.body as { elements: Element[] }).elements.map((element) => element.orderId);
    const placeOn = async (connection: Connection): Promise<number> => {
      const [placed] = await connection.query<ResultSetHeader>(
        `INSERT INTO ${REPLICATED_DATABASE}.orders (user_id, concert_id, total_price, status, created_at, updated_at)
         VALUES (?, 7, 55000, 'PAYMENT_COMPLETED', UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))`,
        [MEMBER],
      );
      return placed.insertId;
    };
    const primaryIsCurrent = (expected: boolean) =>
      waitFor(`the primary to be taken as current: ${expected}`, () => servers.primaryIsCurrent === expected, {
        timeoutMs: ROUNDS_MS,
      });

    beforeAll(async () => {
      pair = await startReplicatedMysql();
      await plantOrders(pair.primaryDataSource, buildDataset(47, 200));
      await placeOn(pair.root('primary'));
      await pair.waitInSync();
      primary = pair.root('primary');
      app = await startTestApp({ ...pair.environment, RATE_LIMIT_PER_MINUTE: '0' });
      servers = app.app.get(DatabaseServers);
      await waitFor('the replica to be healthy', () => servers.replicas[0].isHealthyReplica());
    }, 120_000);

    afterAll(async () => {
      await app?.close();
      await pair?.stop();
    }, 60_000);

    it('reads pages as current while the primary is writable and followed', async () => {
      const response = await memberPage();
      expect(response.status).toBe(200);
      expect(response.headers['data-staleness']).toBeUndefined();
      expect(servers.primaryIsCurrent).toBe(true);
    });

    it('stops taking a primary set read-only as current, and takes it back once it is writable again', async () => {
      const changes = servers.roleChanges;
      await primary.query('SET GLOBAL read_only = ON');
      await primaryIsCurrent(false);
      const demoted = await memberPage();
      expect(demoted.status).toBe(200);
      expect(Number(demoted.headers['data-staleness'])).toBeGreaterThan(0);
      await primary.query('SET GLOBAL read_only = OFF');
      await primaryIsCurrent(true);
      await waitFor(
        'a page read as current again',
        async () => (await memberPage()).headers['data-staleness'] === undefined,
        {
          timeoutMs: ROUNDS_MS,
        },
      );
      expect(servers.roleChanges).toBe(changes + 2);
    }, 30_000);

    it('trusts neither of two writable servers: a write only the old primary holds is never shown as current', async () => {
      // Promoted as orchestrator does: replication removed, writes allowed; the old primary stays writable.
      await pair.root('replica').query('STOP SLAVE; RESET SLAVE ALL; SET GLOBAL read_only = OFF');
      await primaryIsCurrent(false);
      const lost = await placeOn(primary);
      for (let probe = 0; probe < 5; probe += 1) {
        const response = await memberPage();
        expect(response.status).toBe(200);
        // Served with the header, never as current; and not from the old primary, which holds the write.
        expect(Number(response.headers['data-staleness'])).toBeGreaterThan(0);
        expect(orderIds(response)).not.toContain(lost);
      }
    }, 30_000);
  },
);
