import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { RowDataPacket } from 'mysql2/promise';
import { DatabaseServers } from '../../src/database/database-servers';
import { startReplicatedMysql, type ReplicatedMysql } from '../../launchers/replication';
import { startDatabaseAddress, type DatabaseAddress } from '../../launchers/haproxy';
import { waitFor } from '../../launchers/wait-for';
import { hasApplied, LOST_CONCERT, placePaidOrder, type ListedOrder } from '../support/data/failover-writes';
import { buildDataset, plantOrders } from '../support/data/dataset';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { userToken } from '../support/app/tokens';
import { api } from '../support/app/api-client';
import { describeReplicated } from '../support/jest/mariadb-only';

const MEMBER = 6262;
/** docs/API.md §20: a promotion is followed within 3 s, behind an address that keeps its sessions too. */
const RESOLVED_WITHIN_MS = 3000;

/**
 * docs/API.md §20 behind an address that moves without cutting the sessions it carries, as a proxy or virtual IP
 * that only routes new ones: the service's pooled connections and its check's own session would go on reaching the
 * old primary. After a switchover, and with the old primary made writable again (two primaries), the service finds
 * the server now behind the address, keeps no connection on the old one, and serves nothing of it as current.
 */
describeReplicated('a switchover behind an address that keeps its sessions (docs/API.md §20)', () => {
  let pair: ReplicatedMysql;
  let address: DatabaseAddress;
  let app: TestApp;
  let servers: DatabaseServers;

  const memberPage = () => api(app.server, userToken(MEMBER)).get('/orders?size=100');
  /** The service's connections to a server, by its processlist: through the address or not, they name its user. */
  const serviceSessionsOn = async (which: 'primary' | 'replica') => {
    const [[{ sessions }]] = await pair
      .root(which)
      .query<RowDataPacket[]>('SELECT COUNT(*) AS sessions FROM information_schema.PROCESSLIST WHERE USER = ?', [
        pair.environment.DB_USERNAME,
      ]);
    return Number(sessions);
  };

  beforeAll(async () => {
    pair = await startReplicatedMysql();
    await plantOrders(pair.primaryDataSource, buildDataset(61, 100));
    address = await startDatabaseAddress([pair.primary.port, pair.replica.port], { keepsSessions: true });
    // The address alone: no configured name reaches the new primary but through it.
    app = await startTestApp({
      ...pair.environment,
      DB_PORT: String(address.port),
      DB_REPLICAS: undefined,
      RATE_LIMIT_PER_MINUTE: '0',
    });
    servers = app.app.get(DatabaseServers);
    // Pages in parallel, so that the pool holds several sessions on the primary before the switchover.
    await Promise.all(Array.from({ length: 8 }, () => memberPage().expect(200)));
    expect(await serviceSessionsOn('primary')).toBeGreaterThan(1);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await address?.stop();
    await pair?.stop();
  }, 60_000);

  it('finds the promoted server behind the address, and keeps no session on the old primary', async () => {
    // A switchover as orchestrator makes it: the primary demoted, the replica caught up and promoted, the address moved.
    await pair.root('primary').query('SET GLOBAL read_only = ON');
    const [[{ position }]] = await pair.root('primary').query<RowDataPacket[]>('SELECT @@gtid_binlog_pos AS position');
    await waitFor('the replica to apply the primary’s last write', () =>
      hasApplied(pair.root('replica'), String(position)),
    );
    await pair.root('replica').query('STOP SLAVE; RESET SLAVE ALL; SET GLOBAL read_only = OFF');
    const [[{ promotedId }]] = await pair.root('replica').query<RowDataPacket[]>('SELECT @@server_id AS promotedId');
    await address.moveTo(1);
    // Then the old primary takes writes again, beside the new one: what it holds must never be shown as current.
    await pair.root('primary').query('SET GLOBAL read_only = OFF');
    await placePaidOrder(pair.root('primary'), MEMBER, LOST_CONCERT);

    await waitFor(
      'the server behind the address to be found the promoted one, and no session left on the old primary',
      async () =>
        servers.primary.health.role?.serverId === Number(promotedId) && (await serviceSessionsOn('primary')) === 0,
      { timeoutMs: RESOLVED_WITHIN_MS },
    );
    expect(await serviceSessionsOn('replica')).toBeGreaterThan(0);
    for (let probe = 0; probe < 5; probe += 1) {
      const response = await memberPage();
      expect(response.status).toBe(200);
      const concerts = (response.body as { elements: ListedOrder[] }).elements.map((element) => element.concertId);
      expect(concerts).not.toContain(LOST_CONCERT);
    }
    // Every page since was read from the promoted server: none opened a session on the old one.
    expect(await serviceSessionsOn('primary')).toBe(0);
  }, 60_000);
});
