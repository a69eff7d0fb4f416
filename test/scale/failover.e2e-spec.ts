import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Connection, RowDataPacket } from 'mysql2/promise';
import type request from 'supertest';
import { migrateServers } from '../../src/cli/migrate-servers';
import { toDatabaseConfig } from '../../src/config/database.config';
import { validateEnvironment } from '../../src/config/environment';
import { DatabaseServers } from '../../src/database/database-servers';
import { REPLICA_COLUMN, REPLICA_INDEX_PREFIX } from '../../src/orders/replica-indexes';
import type { ThrowawayMysql } from '../../launchers/mysql-server';
import {
  pointReplicaAt,
  startReplicaOf,
  startReplicatedMysql,
  REPLICATED_DATABASE,
  type ReplicatedMysql,
} from '../../launchers/replication';
import { waitFor } from '../../launchers/wait-for';
import { expectProblem } from '../support/assertions/problem';
import {
  hasApplied,
  holdsAll,
  judgePages,
  LOST_CONCERT,
  placePaidOrder,
  receivedBy,
  startWriter,
  survivingConcerts,
  type ListedOrder,
} from '../support/data/failover-writes';
import { buildDataset, plantOrders } from '../support/data/dataset';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { userToken } from '../support/app/tokens';
import { startReaders, withoutRecord } from '../support/app/failover-readers';
import { api } from '../support/app/api-client';
import { describeReplicated } from '../support/jest/mariadb-only';

const MEMBER = 7171;
/** The continuous writer's members, each with fewer orders through the run than a page of 100 holds. */
const WRITTEN_MEMBERS = Array.from({ length: 40 }, (_, index) => 7201 + index);
/** docs/API.md §20: a promotion is followed within 3 s of the new primary being writable. */
const FOLLOWED_WITHIN_MS = 3000;

/**
 * docs/API.md §20 on real MariaDB servers named in DB_HOST and DB_REPLICAS: the primary dies with a write no replica
 * received, one replica is promoted as orchestrator does and the other re-pointed to it, and the old primary comes
 * back writable, then read-only. The service follows the promotion without a restart, never serves the deposed
 * server as current, never shows the lost write, and answers no 5xx throughout.
 */
describeReplicated('a failover among configured servers, followed without a restart (docs/API.md §20)', () => {
  let pair: ReplicatedMysql;
  let second: ThrowawayMysql;
  let secondRoot: Connection;
  let app: TestApp;
  let servers: DatabaseServers;
  let readers: ReturnType<typeof startReaders>;
  let writer: ReturnType<typeof startWriter>;
  let writerPort: number;
  let promotedAt = Infinity;

  const memberPage = (headers: Record<string, string> = {}) =>
    api(app.server, userToken(MEMBER)).get('/orders?size=100').set(headers);
  const elements = (response: request.Response) => (response.body as { elements: ListedOrder[] }).elements;
  /** `npm run migration:run` as configured from the start: DB_HOST naming the first primary. */
  const migrate = async (): Promise<string[]> => {
    const lines: string[] = [];
    const environment = { ...pair.environment, DB_USERNAME: 'root', DB_PASSWORD: '' };
    const replicas = `127.0.0.1:${pair.replica.port},127.0.0.1:${second.port}`;
    await migrateServers(toDatabaseConfig(validateEnvironment({ ...environment, DB_REPLICAS: replicas })), (line) =>
      lines.push(line),
    );
    return lines;
  };
  /** The replicas' own structures a server holds: its replica indexes and column. */
  const replicaStructuresOn = async (connection: Connection): Promise<number> => {
    const [[{ count }]] = await connection.query<RowDataPacket[]>(
      `SELECT (SELECT COUNT(DISTINCT INDEX_NAME) FROM information_schema.STATISTICS
                WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'orders' AND INDEX_NAME LIKE ?)
            + (SELECT COUNT(*) FROM information_schema.COLUMNS
                WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'orders' AND COLUMN_NAME = ?) AS count`,
      [REPLICATED_DATABASE, `${REPLICA_INDEX_PREFIX}%`, REPLICATED_DATABASE, REPLICA_COLUMN.name],
    );
    return Number(count);
  };
  const placeOn = (connection: Connection, concertId?: number) => placePaidOrder(connection, MEMBER, concertId);
  /** Every page served as current (no Data-Staleness) comes from the primary the replicas follow. */
  const expectCurrentWithout = async (lostConcert: number) => {
    const response = await memberPage();
    expect(response.status).toBe(200);
    expect(response.headers['data-staleness']).toBeUndefined();
    expect(elements(response).map((element) => element.concertId)).not.toContain(lostConcert);
    return response;
  };

  beforeAll(async () => {
    pair = await startReplicatedMysql({ promotable: true });
    ({ server: second, root: secondRoot } = await startReplicaOf(pair.primary.port, 3));
    await plantOrders(pair.primaryDataSource, buildDataset(59, 100));
    await placeOn(pair.root('primary'));
    await pair.waitInSync();
    const [[{ position }]] = await pair.root('primary').query<RowDataPacket[]>('SELECT @@gtid_binlog_pos AS position');
    await waitFor('the second replica to catch up', () => hasApplied(secondRoot, String(position)));
    // Each replica with its own read structures, as deployed.
    await migrate();
    app = await startTestApp({
      ...pair.environment,
      DB_REPLICAS: `127.0.0.1:${pair.replica.port},127.0.0.1:${second.port}`,
      RATE_LIMIT_PER_MINUTE: '0',
    });
    servers = app.app.get(DatabaseServers);
    await waitFor('both replicas to be healthy', () => servers.replicas.every((replica) => replica.isHealthyReplica()));
    // An ordering service writes, and members, the back-office and an export read throughout, as during a sale.
    writerPort = pair.primary.port;
    writer = startWriter(() => writerPort, WRITTEN_MEMBERS);
    readers = startReaders(app.server, WRITTEN_MEMBERS, () => memberPage());
    await waitFor(
      'the writer and the readers to be under way',
      () => writer.acknowledged() >= 10 && readers.underWay(),
    );
  }, 180_000);

  afterAll(async () => {
    await readers?.stop();
    await writer?.stop();
    await app?.close();
    secondRoot?.destroy();
    await second?.stop();
    await pair?.stop();
  }, 60_000);

  let lost: { orderId: number; gtid: string };
  let promoted: { orderId: number; gtid: string };

  it('follows a replica promoted after the primary died, within 3 s, and never shows the write lost with it', async () => {
    // Neither replica receives the primary's last write before it dies. The one to be re-pointed stops first: the
    // writer writes on, and it must hold nothing the promoted one lacks, as HA tooling ensures by promoting the most
    // up-to-date replica.
    await secondRoot.query('STOP SLAVE IO_THREAD');
    // The one to promote has received at least what the other did: its IO thread may trail the other's by a moment.
    const receivedBySecond = await receivedBy(secondRoot);
    await waitFor('the replica to promote to have received what the other did', async () =>
      holdsAll(await receivedBy(pair.root('replica')), receivedBySecond),
    );
    await pair.root('replica').query('STOP SLAVE IO_THREAD');
    lost = await placeOn(pair.root('primary'), LOST_CONCERT);
    await pair.primary.kill();
    // Promoted as orchestrator does, the other replica re-pointed to it. Its relay log is applied first: what it received, it
    // keeps.
    const received = await receivedBy(pair.root('replica'));
    await waitFor('the replica to apply what it received', () => hasApplied(pair.root('replica'), received));
    await pair.root('replica').query('STOP SLAVE; RESET SLAVE ALL; SET GLOBAL read_only = OFF');
    promotedAt = Date.now();
    writerPort = pair.replica.port;
    await pointReplicaAt(secondRoot, pair.replica.port);
    await waitFor('the promoted replica to be followed', () => servers.primary.name === 'replica-1', {
      timeoutMs: FOLLOWED_WITHIN_MS,
    });
    expect(Date.now() - promotedAt).toBeLessThanOrEqual(FOLLOWED_WITHIN_MS);
    expect(servers.primaryIsCurrent).toBe(true);

    promoted = await placeOn(pair.root('replica'));
    const current = await expectCurrentWithout(LOST_CONCERT);
    expect(elements(current).map((element) => element.orderId)).toContain(promoted.orderId);
  }, 60_000);

  it('refuses the lost write’s position and honours the promoted server’s', async () => {
    const refused = await memberPage({ 'Read-After-Gtid': lost.gtid });
    expect(expectProblem(refused, 409, ['Read-After-Gtid'])).toMatchObject({ type: '/problems/write-lost' });
    const honoured = await memberPage({ 'Read-After-Gtid': promoted.gtid });
    expect(honoured.status).toBe(200);
    expect(elements(honoured).map((element) => element.orderId)).toContain(promoted.orderId);
  });

  it('never serves the old primary as current when it comes back writable with the lost write, nor read-only', async () => {
    await pair.primary.restart();
    await pair.reconnect('primary');
    await waitFor('the old primary to be found writable and not followed', () =>
      servers.replicas.some((server) => server.name === 'primary' && server.health.role?.writable === true),
    );
    for (let probe = 0; probe < 5; probe += 1) await expectCurrentWithout(LOST_CONCERT);
    expect(servers.primary.name).toBe('replica-1');

    await pair.root('primary').query('SET GLOBAL read_only = ON');
    await waitFor('the old primary to be found read-only', () =>
      servers.replicas.some((server) => server.name === 'primary' && server.health.role?.writable === false),
    );
    for (let probe = 0; probe < 5; probe += 1) await expectCurrentWithout(LOST_CONCERT);
    expect(servers.primary.name).toBe('replica-1');
  }, 60_000);

  it('migrates the topology the servers report: the promoted server loses the replicas’ structures, the replica keeps them', async () => {
    expect(await replicaStructuresOn(pair.root('replica'))).toBeGreaterThan(0);
    const lines = await migrate();
    expect(lines).toEqual([
      expect.stringMatching(/^replica-1 \(127\.0\.0\.1:\d+\) is the primary by what the servers say, not DB_HOST$/),
      expect.stringMatching(/^primary \(127\.0\.0\.1:\d+\): left alone, it does not replicate$/),
      expect.stringMatching(/^replica-1 \(127\.0\.0\.1:\d+\): no pending migration$/),
      expect.stringMatching(
        /^replica-1 \(.*\): the primary now; removed the replicas' own idx_replica_orders_.*created_month$/,
      ),
      expect.stringMatching(/^replica-2 \(127\.0\.0\.1:\d+\): read indexes up to date$/),
    ]);
    expect(await replicaStructuresOn(pair.root('replica'))).toBe(0);
    expect(await replicaStructuresOn(secondRoot)).toBeGreaterThan(0);
    // The promoted server's writes still reach the replica, through its own structures.
    const after = await placeOn(pair.root('replica'));
    await waitFor('the replica to apply a write of the promoted server', () => hasApplied(secondRoot, after.gtid));
    await expectCurrentWithout(LOST_CONCERT);
  }, 120_000);

  it('answered no 5xx while any server answered, no page silently stale, none current from the deposed server', async () => {
    const [read, writes] = [await readers.stop(), await writer.stop()];
    expect(read.failures).toEqual([]);
    // No administrator's answer left without its record, which the promoted primary holds (docs/API.md §21).
    expect(read.adminAnswered.length).toBeGreaterThan(0);
    expect(await withoutRecord(pair.root('replica'), read.adminAnswered)).toEqual([]);
    const judged = judgePages(read.pages, writes, await survivingConcerts(pair.root('replica'), writes), promotedAt);
    // The writer committed on both primaries, and pages were served as current on both sides of the promotion.
    expect(writes.filter((write) => write.ackedAt < promotedAt).length).toBeGreaterThan(0);
    expect(writes.filter((write) => write.ackedAt >= promotedAt).length).toBeGreaterThan(0);
    expect(read.pages.filter((page) => page.sentAt < promotedAt && page.status === 200).length).toBeGreaterThan(0);
    expect(read.pages.filter((page) => page.sentAt >= promotedAt && page.status === 200).length).toBeGreaterThan(0);
    expect(judged.current).toBeGreaterThan(0);
    expect(judged.silentlyStale).toEqual([]);
    expect(judged.deposedAsCurrent).toEqual([]);
  });
});
