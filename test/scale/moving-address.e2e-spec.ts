import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Connection } from 'mysql2/promise';
import type request from 'supertest';
import { DatabaseServers } from '../../src/database/database-servers';
import { startReplicatedMysql, type ReplicatedMysql } from '../../launchers/replication';
import { startDatabaseAddress, type DatabaseAddress } from '../../launchers/haproxy';
import { waitFor } from '../../launchers/wait-for';
import { expectProblem } from '../support/assertions/problem';
import { LOST_CONCERT, placePaidOrder, type ListedOrder } from '../support/data/failover-writes';
import { buildDataset, plantOrders } from '../support/data/dataset';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { userToken } from '../support/app/tokens';
import { api } from '../support/app/api-client';

const MEMBER = 6161;
/** A role change is seen by the next background round (about one a second); this bounds the wait, it is no timing. */
const ROUNDS_MS = 5000;

/**
 * docs/API.md §20 on real MariaDB servers behind a moving address, as HA tooling runs them: the primary dies with a
 * write its replica never received, the replica is promoted and the address moves to it. A writer's position keeps
 * its server part: the lost write's is refused though the new primary's sequence has passed it, the surviving ones
 * are honoured, and a made-up one is refused after the failover as before it.
 */
describe('writers’ positions across a failover behind a moving address (docs/API.md §20)', () => {
  let pair: ReplicatedMysql;
  let address: DatabaseAddress;
  let app: TestApp;
  let servers: DatabaseServers;

  const memberPage = (headers: Record<string, string> = {}) =>
    api(app.server, userToken(MEMBER)).get('/orders?size=100').set(headers);
  const orderIds = (response: request.Response) =>
    (response.body as { elements: ListedOrder[] }).elements.map((element) => element.orderId);
  const placeOn = (connection: Connection, concertId?: number) => placePaidOrder(connection, MEMBER, concertId);

  let survived: { orderId: number; gtid: string };
  let lost: { orderId: number; gtid: string };
  let promotedWrite: { orderId: number; gtid: string };

  beforeAll(async () => {
    pair = await startReplicatedMysql();
    await plantOrders(pair.primaryDataSource, buildDataset(53, 100));
    address = await startDatabaseAddress([pair.primary.port, pair.replica.port]);
    app = await startTestApp({ ...pair.environment, DB_PORT: String(address.port), RATE_LIMIT_PER_MINUTE: '0' });
    servers = app.app.get(DatabaseServers);
    survived = await placeOn(pair.root('primary'));
    await pair.waitInSync();
    await waitFor('the replica to be healthy', () => servers.replicas[0].isHealthyReplica());
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await address?.stop();
    await pair?.stop();
  }, 60_000);

  it('before the failover: honours a writer’s position, and refuses one no commit made', async () => {
    const response = await memberPage({ 'Read-After-Gtid': survived.gtid });
    expect(response.status).toBe(200);
    expect(orderIds(response)).toContain(survived.orderId);
    const [domain, server, sequence] = survived.gtid.split('-');
    const madeUp = await memberPage({ 'Read-After-Gtid': `${domain}-${server}-${Number(sequence) + 1000}` });
    expect(expectProblem(madeUp, 400, ['Read-After-Gtid'])).toMatchObject({ type: '/problems/invalid-parameters' });
  });

  it('after the failover: refuses the lost write’s position, though the new primary’s sequence has passed it', async () => {
    // The replica stops receiving, the primary takes one more write and dies: that write is lost.
    await pair.root('replica').query('STOP SLAVE IO_THREAD');
    lost = await placeOn(pair.root('primary'), LOST_CONCERT);
    await pair.primary.kill();
    // Promoted as orchestrator does, the address moved to it, and the sale writes on.
    await pair.root('replica').query('STOP SLAVE; RESET SLAVE ALL; SET GLOBAL read_only = OFF');
    await address.moveTo(1);
    promotedWrite = await placeOn(pair.root('replica'));
    const [, , lostSequence] = lost.gtid.split('-').map(Number);
    const [, promotedServer, promotedSequence] = promotedWrite.gtid.split('-').map(Number);
    // The case a comparison by sequence alone gets wrong: another server, the same sequence or past it.
    expect(promotedServer).not.toBe(Number(lost.gtid.split('-')[1]));
    expect(promotedSequence).toBeGreaterThanOrEqual(lostSequence);

    await waitFor(
      'the server behind the address to be found the promoted one, and taken as the primary',
      () => servers.primary.health.role?.serverId === promotedServer && servers.primaryIsCurrent,
      { timeoutMs: ROUNDS_MS },
    );
    const refused = await memberPage({ 'Read-After-Gtid': lost.gtid });
    expect(expectProblem(refused, 409, ['Read-After-Gtid'])).toMatchObject({ type: '/problems/write-lost' });
    const current = await memberPage();
    expect(current.status).toBe(200);
    expect(current.headers['data-staleness']).toBeUndefined();
    const elements = (current.body as { elements: ListedOrder[] }).elements;
    expect(elements.map((element) => element.concertId)).not.toContain(LOST_CONCERT);
  }, 60_000);

  it('after the failover: honours the surviving writes’ positions, and refuses a made-up one as before', async () => {
    for (const write of [survived, promotedWrite]) {
      const response = await memberPage({ 'Read-After-Gtid': write.gtid });
      expect(response.status).toBe(200);
      expect(response.headers['data-staleness']).toBeUndefined();
      expect(orderIds(response)).toContain(write.orderId);
    }
    const [domain, server, sequence] = promotedWrite.gtid.split('-');
    const madeUp = await memberPage({ 'Read-After-Gtid': `${domain}-${server}-${Number(sequence) + 1000}` });
    expect(expectProblem(madeUp, 400, ['Read-After-Gtid'])).toMatchObject({ type: '/problems/invalid-parameters' });
  });
});
