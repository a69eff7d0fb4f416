import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { RowDataPacket } from 'mysql2/promise';
import request from 'supertest';
import { Metrics } from '../../src/observability/metrics';
import { buildDataset, plantOrders, type TestOrder } from '../support/data/dataset';
import { globalStatus, startReplicatedMysql, type ReplicatedMysql } from '../../launchers/replication';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { userToken } from '../support/app/tokens';
import { waitFor } from '../../launchers/wait-for';
import { api } from '../support/app/api-client';
import { describeReplicated } from '../support/jest/mariadb-only';

const MAX_LAG_S = 2;
const CLOSE_BOUND_MS = 15_000;
/** A member with more orders than one page of 2, so that every listing runs the page, the count and the seats. */
const MEMBER = 1;

interface Measured {
  what: string;
  ms: number;
}

/**
 * docs/API.md §11 on a real MariaDB primary and replica in GTID replication:
 * where reads go, when a replica is skipped and used again, and that a
 * replica or the primary going away costs no request.
 */
describeReplicated('read replicas', () => {
  let pair: ReplicatedMysql;
  let app: TestApp;
  let dataset: TestOrder[];
  const measured: Measured[] = [];

  beforeAll(async () => {
    pair = await startReplicatedMysql();
    dataset = buildDataset(11, 120);
    await plantOrders(pair.primaryDataSource, dataset);
    await pair.waitInSync();
    app = await startTestApp({
      ...pair.environment,
      DB_REPLICA_MAX_LAG_S: String(MAX_LAG_S),
      RATE_LIMIT_PER_MINUTE: '0',
    });
    await waitFor('the replica to be read from', async () => (await servedBy(app)) === 'replica-1');
  }, 120_000);

  afterAll(async () => {
    // Closing ends the pools, and ending a pool whose server was killed can wait on sockets that never answer; the
    // servers are stopped after at most CLOSE_BOUND_MS either way, so that nothing of this suite outlives it.
    await Promise.race([app?.close(), new Promise((resolve) => setTimeout(resolve, CLOSE_BOUND_MS).unref())]);
    await pair?.stop();
    // The figures docs/RELIABILITY.md and docs/SCALING.md quote.
    if (measured.length > 0) {
      process.stdout.write(`read replicas, measured:\n${measured.map((m) => `  ${m.what}: ${m.ms} ms\n`).join('')}`);
    }
  }, 60_000);

  const list = (instance: TestApp, size = 2) => api(instance.server, userToken(MEMBER)).get(`/orders?size=${size}`);

  /** How many page statements each server has run for this application. */
  async function pageStatements(instance: TestApp): Promise<Map<string, number>> {
    const metric = instance.app.get(Metrics).registry.getSingleMetric('db_client_operation_duration_seconds');
    const counts = new Map<string, number>();
    for (const value of (await metric!.get()).values) {
      // A histogram's values carry the name of their series (`_bucket`, `_sum`, `_count`).
      if ((value as { metricName?: string }).metricName?.endsWith('_count') && value.labels.statement === 'page') {
        counts.set(String(value.labels.server), value.value);
      }
    }
    return counts;
  }

  /** `db_replica_healthy` for replica-1 as the application exports it now. */
  async function replicaHealthy(instance: TestApp): Promise<number | undefined> {
    const metric = instance.app.get(Metrics).registry.getSingleMetric('db_replica_healthy');
    return (await metric!.get()).values.find((value) => value.labels.server === 'replica-1')?.value;
  }

  /** Lists once and tells which server answered, from the statement metrics. */
  async function servedBy(instance: TestApp): Promise<string> {
    const before = await pageStatements(instance);
    const response = await list(instance);
    expect(response.status).toBe(200);
    const after = await pageStatements(instance);
    const servers = [...after].filter(([server, count]) => count > (before.get(server) ?? 0)).map(([server]) => server);
    expect(servers).toHaveLength(1);
    return servers[0];
  }

  /** Milliseconds until requests are served by `server`, polling with real requests. */
  async function untilServedBy(server: string, since: number, timeoutMs = 15_000): Promise<number> {
    await waitFor(`requests to be served by ${server}`, async () => (await servedBy(app)) === server, {
      timeoutMs,
      intervalMs: 50,
    });
    return Date.now() - since;
  }

  /** Milliseconds from `since` until requests are served by `server`, recorded under `what` and bounded by `withinMs`. */
  async function timeUntilServedBy(what: string, server: string, since: number, withinMs: number): Promise<number> {
    const ms = await untilServedBy(server, since);
    measured.push({ what, ms });
    expect(ms).toBeLessThanOrEqual(withinMs);
    return ms;
  }

  /** Steady load: `workers` clients listing one request after another until stopped; every status and time is kept. */
  function steadyLoad(workers = 4) {
    const statuses: Array<number | string> = [];
    const latencies: number[] = [];
    let running = true;
    const loops = Array.from({ length: workers }, async () => {
      // A request that fails outright is recorded too, by its error code, rather than ending the loop.
      while (running) {
        const sent = Date.now();
        statuses.push(
          await list(app).then(
            (response) => response.status,
            (error: Error & { code?: string }) => error.code ?? error.name,
          ),
        );
        latencies.push(Date.now() - sent);
      }
    });
    return {
      statuses,
      slowestMs: () => Math.max(...latencies),
      stop: async () => {
        running = false;
        await Promise.all(loops);
        return statuses;
      },
    };
  }

  let nextId = 1_000_000;
  /** Commits one new order of MEMBER on the primary. */
  async function writeOnPrimary(): Promise<void> {
    nextId += 1;
    await pair.root('primary').query(
      `INSERT INTO orders_test.orders (id, user_id, concert_id, total_price, status, created_at, updated_at)
         VALUES (?, ?, 1, 10.00, 'PAYMENT_COMPLETED', UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))`,
      [nextId, MEMBER],
    );
  }

  const memberOrders = async (which: 'primary' | 'replica') => {
    const [[row]] = await pair
      .root(which)
      .query<RowDataPacket[]>('SELECT COUNT(*) AS total FROM orders_test.orders WHERE user_id = ?', [MEMBER]);
    return Number(row.total);
  };

  it('reads every statement of the listing from the replica; the primary answers one position read a request', async () => {
    const primaryBefore = await globalStatus(pair.root('primary'), 'Com_select');
    const replicaBefore = await globalStatus(pair.root('replica'), 'Com_select');
    const started = Date.now();
    for (let index = 0; index < 40; index += 1) expect((await list(app)).status).toBe(200);
    const seconds = (Date.now() - started) / 1000;
    const primaryDelta = (await globalStatus(pair.root('primary'), 'Com_select')) - primaryBefore;
    const replicaDelta = (await globalStatus(pair.root('replica'), 'Com_select')) - replicaBefore;
    // Page, count and seats of 40 requests; the background checks add about one statement a second to each server.
    expect(replicaDelta).toBeGreaterThanOrEqual(120);
    // docs/API.md §19: the primary's position, which reads no table, once per request at most.
    expect(primaryDelta).toBeLessThanOrEqual(40 + Math.ceil(seconds) + 3);
  });

  it('reads page and count of a member’s request from the primary when the replica within the bound lacks their orders', async () => {
    const tolerant = await startTestApp({
      ...pair.environment,
      DB_REPLICA_MAX_LAG_S: '120',
      RATE_LIMIT_PER_MINUTE: '0',
    });
    try {
      await pair.setDelay(60);
      // Healthy, as DB_REPLICA_MAX_LAG_S counts it: the router's own verdict, since any commit on the primary (the count
      // fold's too) sends pages to the primary until the delayed replica has applied it.
      await waitFor('the delayed replica to be healthy', async () => (await replicaHealthy(tolerant)) === 1);
      for (let index = 0; index < 3; index += 1) await writeOnPrimary();
      const onReplica = await memberOrders('replica');
      expect(await memberOrders('primary')).toBe(onReplica + 3);
      const response = await list(tolerant, 50);
      expect(response.status).toBe(200);
      const body = response.body as { totalElementCount: number; elements: Array<{ orderId: number }> };
      // docs/API.md §19: the replica is within DB_REPLICA_MAX_LAG_S but has not applied them; page and count agree.
      expect(body.totalElementCount).toBe(onReplica + 3);
      expect(body.elements.filter((element) => element.orderId > 1_000_000)).toHaveLength(3);
      expect(response.headers['data-staleness']).toBeUndefined();
    } finally {
      await tolerant.close();
      await pair.setDelay(0);
      await pair.waitInSync();
    }
  }, 60_000);

  /** Whether the count fold has nothing left to fold on the primary, so that it commits nothing until the next write. */
  async function foldIdle(): Promise<boolean> {
    const database = pair.environment.DB_DATABASE;
    const [[row]] = await pair
      .root('primary')
      .query<RowDataPacket[]>(
        `SELECT (SELECT COUNT(*) FROM \`${database}\`.order_count_changes) + (SELECT COUNT(*) FROM \`${database}\`.order_count_moves) AS pending`,
      );
    return Number(row.pending) === 0;
  }

  it('stops counting a replica as healthy within 2 s of its lag passing DB_REPLICA_MAX_LAG_S, and again once it catches up', async () => {
    // The lag is timed from the test's own write: no fold of an earlier test's writes may commit before it.
    await waitFor('the count fold to be idle', foldIdle, { intervalMs: 20 });
    await pair.setDelay(30);
    try {
      // Healthy still: no commit has been held back yet. Pages may already go to the primary (docs/API.md §19) as soon as
      // the primary commits anything, the count fold's writes among them, so the router's own verdict is what is waited on.
      await waitFor('replica-1 to be healthy', async () => (await replicaHealthy(app)) === 1, { intervalMs: 20 });
      // The replica now holds back every commit by 30 s; from this one on it is behind.
      await writeOnPrimary();
      const committed = Date.now();
      // A page is read from the primary at once: the replica has not applied the write (docs/API.md §19).
      expect(await servedBy(app)).toBe('primary');
      await waitFor('replica-1 to count as not healthy', async () => (await replicaHealthy(app)) === 0, {
        timeoutMs: 10_000,
        intervalMs: 20,
      });
      const sinceBound = Date.now() - committed - MAX_LAG_S * 1000;
      measured.push({
        what: 'replica no longer healthy after its lag passed the bound (MASTER_DELAY)',
        ms: sinceBound,
      });
      expect(sinceBound).toBeLessThanOrEqual(2000);
      // Never more than one check interval before the bound: a replica within it is still healthy.
      expect(sinceBound).toBeGreaterThanOrEqual(-1100);
    } finally {
      await pair.setDelay(0);
      await pair.waitInSync();
    }
    await timeUntilServedBy('replica read from again after catching up', 'replica-1', Date.now(), 10_000);
  }, 60_000);

  it('skips a replica whose replication is stopped, and reads from it again when it runs', async () => {
    await pair.root('replica').query('STOP SLAVE SQL_THREAD');
    await timeUntilServedBy('replica skipped after STOP SLAVE SQL_THREAD', 'primary', Date.now(), 2000);

    await pair.root('replica').query('START SLAVE SQL_THREAD');
    await timeUntilServedBy('replica read from again after START SLAVE SQL_THREAD', 'replica-1', Date.now(), 10_000);
  }, 30_000);

  it('fails no request when the replica is killed under steady load, and reads from it again once it is back', async () => {
    const load = steadyLoad();
    let markedDown: number;
    try {
      await waitFor('some load', () => load.statuses.length >= 40);
      await pair.replica.kill();
      const killed = Date.now();
      // Requests run concurrently here, so the router's own verdict, as exported, tells when it stopped reading there.
      await waitFor('replica-1 to be marked down', async () => (await replicaHealthy(app)) === 0, { intervalMs: 5 });
      markedDown = Date.now() - killed;
      const countAtKill = load.statuses.length;
      await waitFor('load to go on without the replica', () => load.statuses.length >= countAtKill + 100);
    } finally {
      await load.stop();
    }
    measured.push({ what: 'replica marked down after being killed (SIGKILL)', ms: markedDown });
    expect(load.statuses.filter((status) => status !== 200)).toEqual([]);
    expect(markedDown).toBeLessThanOrEqual(2000);

    await pair.replica.restart();
    const restarted = Date.now();
    await pair.reconnect('replica');
    await timeUntilServedBy('replica read from again after it restarted', 'replica-1', restarted, 10_000);
  }, 60_000);

  /** Statements still running on a server, other than the asking one's, that started over a second ago. */
  async function longRunning(which: 'primary' | 'replica'): Promise<RowDataPacket[]> {
    const [rows] = await pair.root(which).query<RowDataPacket[]>(
      `SELECT ID, TIME, INFO FROM information_schema.PROCESSLIST
          WHERE COMMAND = 'Query' AND ID <> CONNECTION_ID() AND TIME >= 1 AND INFO NOT LIKE '%BINLOG%'`,
    );
    return rows;
  }

  it('costs no client its answer when the replica hangs (SIGSTOP), uses it again after SIGCONT, and leaves nothing running there', async () => {
    await pair.waitInSync();
    await untilServedBy('replica-1', Date.now());
    const killsBefore = await globalStatus(pair.root('replica'), 'Com_kill');
    const load = steadyLoad();
    let resumed = 0;
    try {
      await waitFor('some load', () => load.statuses.length >= 40);
      await pair.replica.pause();
      const stopped = Date.now();
      await waitFor('replica-1 to be marked down', async () => (await replicaHealthy(app)) === 0, { intervalMs: 5 });
      measured.push({ what: 'hung replica (SIGSTOP) marked down', ms: Date.now() - stopped });
      const countAtDown = load.statuses.length;
      // Longer than a health check's own time limit: the hang is noticed by the checks too, not only by requests.
      await waitFor('load to go on without the replica', () => load.statuses.length >= countAtDown + 200);
      await waitFor('the hang to outlast a check', () => Date.now() - stopped > 2500);
    } finally {
      pair.replica.signal('SIGCONT');
      resumed = Date.now();
      await load.stop();
    }
    measured.push({ what: 'slowest request while the replica hung', ms: load.slowestMs() });
    expect(load.statuses.filter((status) => status !== 200)).toEqual([]);
    expect(load.slowestMs()).toBeLessThan(1000);
    await timeUntilServedBy('hung replica read from again after SIGCONT', 'replica-1', resumed, 10_000);
    // The statements given up there were killed once it answered again; none is left running.
    expect(await globalStatus(pair.root('replica'), 'Com_kill')).toBeGreaterThan(killsBefore);
    expect(await longRunning('replica')).toEqual([]);
  }, 60_000);

  it('waits for a statement held up on a replica that nothing else asks of but that answers its check', async () => {
    await pair.waitInSync();
    await untilServedBy('replica-1', Date.now());
    const replica = pair.root('replica');
    const before = await pageStatements(app);
    // Held up by the test's own lock: the server runs and answers a check, as under a statement slow by its shape.
    await replica.query(`LOCK TABLES \`${pair.environment.DB_DATABASE}\`.orders WRITE`);
    const sent = Date.now();
    let answered: request.Response | undefined;
    try {
      const answer = list(app).then((response) => (answered = response));
      await waitFor('the listing to wait on the replica', async () => {
        const [rows] = await replica.query<RowDataPacket[]>(
          "SELECT ID FROM information_schema.PROCESSLIST WHERE STATE LIKE 'Waiting for table metadata lock'",
        );
        return rows.length > 0;
      });
      // Past the longest give-up time (a quarter of the 2 s deadline, and half as long for the check).
      await waitFor('the statement to be held past any give-up time', () => Date.now() - sent > 1000);
      expect(answered).toBeUndefined();
      await replica.query('UNLOCK TABLES');
      await answer;
    } finally {
      await replica.query('UNLOCK TABLES');
    }
    expect(answered?.status).toBe(200);
    const after = await pageStatements(app);
    expect(after.get('replica-1')).toBe((before.get('replica-1') ?? 0) + 1);
    expect(after.get('primary') ?? 0).toBe(before.get('primary') ?? 0);
    expect(await replicaHealthy(app)).toBe(1);
  }, 60_000);

  it('costs no client its answer when the primary hangs while serving, retrying on the replica', async () => {
    await pair.waitInSync();
    // A replica that answers but does not replicate is not read from: the primary serves, the replica is the fallback.
    await pair.root('replica').query('STOP SLAVE SQL_THREAD');
    await untilServedBy('primary', Date.now());
    const load = steadyLoad();
    try {
      await waitFor('some load', () => load.statuses.length >= 40);
      await pair.primary.pause();
      const stopped = Date.now();
      const countAtStop = load.statuses.length;
      await waitFor('load to go on without the primary', () => load.statuses.length >= countAtStop + 200);
      await waitFor('the hang to outlast a check', () => Date.now() - stopped > 2500);
    } finally {
      pair.primary.signal('SIGCONT');
      await load.stop();
      await pair.root('replica').query('START SLAVE SQL_THREAD');
    }
    measured.push({ what: 'slowest request while the serving primary hung', ms: load.slowestMs() });
    expect(load.statuses.filter((status) => status !== 200)).toEqual([]);
    expect(load.slowestMs()).toBeLessThan(1000);
    await waitFor('the primary to be checked again', async () => (await longRunning('primary')).length === 0);
    await pair.waitInSync();
    await untilServedBy('replica-1', Date.now());
  }, 60_000);

  it('costs no client its answer when the primary hangs while the replica serves', async () => {
    await pair.waitInSync();
    await untilServedBy('replica-1', Date.now());
    const load = steadyLoad();
    const readiness: number[] = [];
    try {
      await waitFor('some load', () => load.statuses.length >= 40);
      await pair.primary.pause();
      const stopped = Date.now();
      while (Date.now() - stopped < 3000) readiness.push((await request(app.server).get('/health/ready')).status);
    } finally {
      pair.primary.signal('SIGCONT');
      await load.stop();
    }
    measured.push({ what: 'slowest request while the idle primary hung', ms: load.slowestMs() });
    expect(load.statuses.filter((status) => status !== 200)).toEqual([]);
    expect(load.slowestMs()).toBeLessThan(1000);
    expect(readiness.filter((status) => status !== 200)).toEqual([]);
    await pair.waitInSync();
  }, 60_000);

  it('keeps answering the listing and readiness 200 from the replica when the primary is killed', async () => {
    await pair.waitInSync();
    const load = steadyLoad();
    const readiness: number[] = [];
    try {
      await waitFor('some load', () => load.statuses.length >= 40);
      await pair.primary.kill();
      const killed = Date.now();
      // Long enough for the replica's replication to notice and for every check to have run several times.
      while (Date.now() - killed < 4000) {
        readiness.push((await request(app.server).get('/health/ready')).status);
      }
      expect(await servedBy(app)).toBe('replica-1');
    } finally {
      await load.stop();
      // Leaves the pair as it found it, so that any test of this suite can run alone or after this one.
      await pair.primary.restart();
      await pair.reconnect('primary');
      await pair.setDelay(0);
      await pair.waitInSync();
    }
    expect(load.statuses.filter((status) => status !== 200)).toEqual([]);
    expect(readiness.filter((status) => status !== 200)).toEqual([]);
    await waitFor('the replica to be read from', async () => (await servedBy(app)) === 'replica-1');
  }, 90_000);
});
