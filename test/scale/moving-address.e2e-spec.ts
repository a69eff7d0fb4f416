import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Connection, RowDataPacket } from 'mysql2/promise';
import request from 'supertest';
import { DatabaseServers } from '../../src/database/database-servers';
import { Metrics } from '../../src/observability/metrics';
import type { ThrowawayMysql } from '../../launchers/mysql-server';
import {
  pointReplicaAt,
  startReplicaOf,
  REPLICATED_DATABASE,
  startReplicatedMysql,
  type ReplicatedMysql,
} from '../../launchers/replication';
import { startDatabaseAddress, type DatabaseAddress } from '../../launchers/haproxy';
import { waitFor } from '../../launchers/wait-for';
import { expectProblem } from '../support/assertions/problem';
import {
  hasApplied,
  judgePages,
  LOST_CONCERT,
  placePaidOrder,
  receivedBy,
  startWriter,
  survivingConcerts,
  type ListedOrder,
} from '../support/data/failover-writes';
import { startReaders, withoutRecord } from '../support/app/failover-readers';
import { buildDataset, plantOrders } from '../support/data/dataset';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { userToken } from '../support/app/tokens';
import { api } from '../support/app/api-client';
import { describeReplicated } from '../support/jest/mariadb-only';

const MEMBER = 6161;
/** The continuous writer's members, each with fewer orders through the run than a page of 100 holds. */
const WRITTEN_MEMBERS = Array.from({ length: 40 }, (_, index) => 6201 + index);
/** docs/API.md §20: a promotion is followed within 3 s of the new primary being writable. */
const ROUNDS_MS = 3000;

/**
 * docs/API.md §20 on real MariaDB servers behind a moving address, as HA tooling runs them, while an ordering
 * service writes through the address and members, the back-office and an export read: the primary dies with a
 * write its replicas never received, one replica is promoted and the address moves to it, the other is re-pointed
 * to it, and the old primary comes back writable, then read-only. A writer's position keeps its server part: the lost write's is refused though the
 * new primary's sequence has passed it, the surviving ones are honoured, and a made-up one is refused after the
 * failover as before it. No page is silently stale, none is current from the deposed server, and none is a 5xx.
 */
describeReplicated('writers’ positions across a failover behind a moving address (docs/API.md §20)', () => {
  let pair: ReplicatedMysql;
  let second: ThrowawayMysql;
  let secondRoot: Connection;
  let address: DatabaseAddress;
  let app: TestApp;
  let servers: DatabaseServers;
  let readers: ReturnType<typeof startReaders>;
  let writer: ReturnType<typeof startWriter>;
  let promotedAt = Infinity;
  let before: { roleChanges: number; primaryIdentity: string };

  const metricsText = () => app.app.get(Metrics).registry.metrics();
  const roleChanges = async () => Number(/^db_role_changes_total (\d+)$/m.exec(await metricsText())?.[1]);
  /** The physical server `db_server_info` names as the primary followed (behind the address, or the promoted one's). */
  const primaryIdentity = async () =>
    /^db_server_info\{server="[^"]+",identity="([^"]+)",role="primary"\} 1$/m.exec(await metricsText())?.[1];
  const readinessIdentity = async () =>
    (
      (await request(app.server).get('/health/ready')).body as {
        details?: { database?: { server?: string; identity?: string } };
      }
    ).details?.database;

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
    ({ server: second, root: secondRoot } = await startReplicaOf(pair.primary.port, 3));
    await plantOrders(pair.primaryDataSource, buildDataset(53, 100));
    address = await startDatabaseAddress([pair.primary.port, pair.replica.port]);
    app = await startTestApp({
      ...pair.environment,
      DB_PORT: String(address.port),
      DB_REPLICAS: `127.0.0.1:${pair.replica.port},127.0.0.1:${second.port}`,
      RATE_LIMIT_PER_MINUTE: '0',
    });
    servers = app.app.get(DatabaseServers);
    survived = await placeOn(pair.root('primary'));
    await pair.waitInSync();
    await waitFor('the second replica to catch up', () => hasApplied(secondRoot, survived.gtid));
    await waitFor('both replicas to be healthy', () => servers.replicas.every((replica) => replica.isHealthyReplica()));
    writer = startWriter(() => address.port, WRITTEN_MEMBERS);
    readers = startReaders(app.server, WRITTEN_MEMBERS);
    await waitFor(
      'the writer and the readers to be under way',
      () => writer.acknowledged() >= 10 && readers.underWay(),
    );
  }, 120_000);

  afterAll(async () => {
    await readers?.stop();
    await writer?.stop();
    await app?.close();
    await address?.stop();
    secondRoot?.destroy();
    await second?.stop();
    await pair?.stop();
  }, 60_000);

  it('before the failover: names the server behind the address in the metrics and readiness', async () => {
    const identity = String(servers.primary.knownServerId);
    before = { roleChanges: await roleChanges(), primaryIdentity: identity };
    expect(await primaryIdentity()).toBe(identity);
    expect(await readinessIdentity()).toEqual({ status: 'up', server: 'primary', role: 'primary', identity });
  });

  it('before the failover: honours a writer’s position, and refuses one no commit made', async () => {
    const response = await memberPage({ 'Read-After-Gtid': survived.gtid });
    expect(response.status).toBe(200);
    expect(orderIds(response)).toContain(survived.orderId);
    const [domain, server, sequence] = survived.gtid.split('-');
    const madeUp = await memberPage({ 'Read-After-Gtid': `${domain}-${server}-${Number(sequence) + 1000}` });
    expect(expectProblem(madeUp, 400, ['Read-After-Gtid'])).toMatchObject({ type: '/problems/invalid-parameters' });
  });

  it('after the failover: refuses the lost write’s position, though the new primary’s sequence has passed it', async () => {
    // The replicas stop receiving, the primary takes one more write and dies: that write is lost. The one to be
    // re-pointed stops first: the writer writes on, and it must hold nothing the promoted one lacks, as HA tooling
    // ensures by promoting the most up-to-date replica.
    await secondRoot.query('STOP SLAVE IO_THREAD');
    await pair.root('replica').query('STOP SLAVE IO_THREAD');
    lost = await placeOn(pair.root('primary'), LOST_CONCERT);
    await pair.primary.kill();
    // Promoted as orchestrator does, the address moved to it, and the sale writes on. Its relay log is applied first: what it received, it
    // keeps.
    const received = await receivedBy(pair.root('replica'));
    await waitFor('the replica to apply what it received', () => hasApplied(pair.root('replica'), received));
    await pair.root('replica').query('STOP SLAVE; RESET SLAVE ALL; SET GLOBAL read_only = OFF');
    await address.moveTo(1);
    promotedAt = Date.now();
    await pointReplicaAt(secondRoot, pair.replica.port);
    const [, , lostSequence] = lost.gtid.split('-').map(Number);
    const sequenceOf = (write: { gtid: string }) => Number(write.gtid.split('-')[2]);
    promotedWrite = await placeOn(pair.root('replica'));
    // The writer's last writes on the dead primary put the lost one further on: the promoted server writes until its
    // sequence has passed it.
    while (sequenceOf(promotedWrite) < lostSequence) promotedWrite = await placeOn(pair.root('replica'));
    const [, promotedServer, promotedSequence] = promotedWrite.gtid.split('-').map(Number);
    // The case a comparison by sequence alone gets wrong: another server, the same sequence or past it.
    expect(promotedServer).not.toBe(Number(lost.gtid.split('-')[1]));
    expect(promotedSequence).toBeGreaterThanOrEqual(lostSequence);

    await waitFor(
      'the server behind the address to be found the promoted one, and taken as the primary',
      () => servers.primary.health.role?.serverId === promotedServer && servers.primaryIsCurrent,
      { timeoutMs: ROUNDS_MS },
    );
    // Told within 3 s of the move: a change of role, and the promoted server named behind the address.
    await waitFor(
      'the metrics and readiness to name the promoted server behind the address',
      async () =>
        (await roleChanges()) > before.roleChanges &&
        (await primaryIdentity()) === String(promotedServer) &&
        (await readinessIdentity())?.identity === String(promotedServer),
      { timeoutMs: Math.max(0, promotedAt + ROUNDS_MS - Date.now()) },
    );
    expect(String(promotedServer)).not.toBe(before.primaryIdentity);
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
      // Honoured as before the failover: the write is shown, by a replica that has applied it (which says it may miss
      // others, docs/API.md §19) or by the primary.
      const response = await memberPage({ 'Read-After-Gtid': write.gtid });
      expect(response.status).toBe(200);
      expect(orderIds(response)).toContain(write.orderId);
    }
    const [domain, server, sequence] = promotedWrite.gtid.split('-');
    const madeUp = await memberPage({ 'Read-After-Gtid': `${domain}-${server}-${Number(sequence) + 1000}` });
    expect(expectProblem(madeUp, 400, ['Read-After-Gtid'])).toMatchObject({ type: '/problems/invalid-parameters' });
  });

  it('never serves the old primary as current when it comes back writable with the lost write, nor read-only', async () => {
    await pair.primary.restart();
    await pair.reconnect('primary');
    const old = pair.root('primary');
    const [[{ lostThere }]] = await old.query<RowDataPacket[]>(
      `SELECT COUNT(*) AS lostThere FROM ${REPLICATED_DATABASE}.orders WHERE concert_id = ?`,
      [LOST_CONCERT],
    );
    expect(Number(lostThere)).toBe(1);
    const current = await memberPage();
    expect(current.status).toBe(200);
    const concerts = (current.body as { elements: ListedOrder[] }).elements.map((element) => element.concertId);
    expect(concerts).not.toContain(LOST_CONCERT);
    await old.query('SET GLOBAL read_only = ON');
    const after = await memberPage();
    expect(after.status).toBe(200);
    expect(after.headers['data-staleness']).toBeUndefined();
  }, 60_000);

  it('answered no 5xx, no page silently stale, none current from the deposed server, while writes went on', async () => {
    const [read, writes] = [await readers.stop(), await writer.stop()];
    expect(read.failures).toEqual([]);
    // No administrator's answer left without its record, which the promoted primary holds (docs/API.md §21).
    expect(read.adminAnswered.length).toBeGreaterThan(0);
    expect(await withoutRecord(pair.root('replica'), read.adminAnswered)).toEqual([]);
    expect(writes.filter((write) => write.ackedAt < promotedAt).length).toBeGreaterThan(0);
    expect(writes.filter((write) => write.ackedAt >= promotedAt).length).toBeGreaterThan(0);
    const judged = judgePages(read.pages, writes, await survivingConcerts(pair.root('replica'), writes), promotedAt);
    expect(judged.current).toBeGreaterThan(0);
    expect(judged.silentlyStale).toEqual([]);
    expect(judged.deposedAsCurrent).toEqual([]);
  });
});
