import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { DataSource, QueryFailedError, type QueryRunner } from 'typeorm';
import type { Clock } from '../common/time/clock';
import type { EventLoopDelay } from '../common/time/event-loop-delay';
import { toDatabaseConfig } from '../config/database.config';
import { validateEnvironment } from '../config/environment';
import { buildDataSourceOptions } from './data-source-options';
import { DatabaseSaturatedError, DatabaseUnavailableError } from './database-errors';
import type { DatabaseServer } from './database-server';
import type { ServerHealth } from './server-state';
import { DatabaseServers } from './database-servers';
import { Freshness, LostPositionError, MalformedPositionError, UncommittedPositionError } from './freshness';
import { ReadRouter } from './read-router';
import { ReadSession, giveUpAfterMs } from './read-session';
import { NoCapableServerException, ReplicasBehindError, ServerChoice, type ServerRequirement } from './server-choice';
import { catalogOf, type CatalogRow } from './server-catalog';
import { parseGtidPosition } from './replication-lag';
import { RequestDeadlines } from './request-deadline';

// Jest's fake timers move Date.now and every setTimeout together: the test decides when time passes.
const clock: Clock = { now: () => Date.now() };
// Time is faked, not the event loop's turns: a deadline decides who is to blame after the I/O of its turn (setImmediate).
const CLOCK_ONLY = { doNotFake: ['setImmediate' as const] };
// An event loop that notices everything at once: lateness here is never the process's.
const idleLoop: EventLoopDelay = { recentMs: () => 0 };

/** A primary and two replicas that are never connected to: routing decides from the health the checks recorded. */
function router(deadlineMs = 2000): {
  reads: ReadRouter;
  served: Freshness['served'];
  servers: DatabaseServers;
  primary: DatabaseServer;
  one: DatabaseServer;
  two: DatabaseServer;
  variables: jest.SpiedFunction<DatabaseServer['readVariable']>;
} {
  const config = toDatabaseConfig(
    validateEnvironment({
      DB_TYPE: 'mysql',
      DB_REPLICAS: '127.0.0.1:1,127.0.0.1:2',
      DB_REPLICA_MAX_LAG_S: '5',
      DB_REPLICA_MAX_STALENESS_S: '60',
      DB_QUERY_TIMEOUT_MS: String(deadlineMs),
    }),
  );
  const servers = new DatabaseServers(new DataSource(buildDataSourceOptions(config)), config, clock);
  const freshness = new Freshness(servers, clock);
  const deadlines = new RequestDeadlines(config, clock, idleLoop);
  const reads = new ReadRouter(servers, deadlines, new ServerChoice(servers), freshness);
  const [primary, one, two] = servers.all;
  // The pools are opened by TypeORM and the background check, which do not run here; routing reads only this flag.
  for (const server of [primary, one, two]) Object.defineProperty(server.dataSource, 'isInitialized', { value: true });
  // A MariaDB primary (server 1) at PRIMARY_POSITION, which every replica found `healthy` has applied: no read waits
  // (§19); its history holds its own writes up to there.
  const variables = jest
    .spyOn(primary, 'readVariable')
    .mockImplementation((sql) =>
      Promise.resolve(
        sql.includes('@@version')
          ? '10.11.19-MariaDB'
          : sql.includes('gtid_binlog_state')
            ? PRIMARY_HISTORY
            : PRIMARY_POSITION,
      ),
    );
  return { reads, served: freshness.served, servers, primary, one, two, variables };
}

const PRIMARY_POSITION = '0-1-500';
/** Server 1's history: its own writes to 0-1-500, and before it was primary it applied server 2's up to 0-2-300. */
const PRIMARY_HISTORY = '1;0-1-500,0-2-300;0-2-300';
const healthy: ServerHealth = {
  answering: true,
  replicating: true,
  lagSeconds: 0.4,
  position: parseGtidPosition(PRIMARY_POSITION),
};
/** A replica seconds behind has applied less than the primary holds. */
const behind: ServerHealth = { ...healthy, position: parseGtidPosition('0-1-400') };

/** What a background check found, recorded as a check that started now. */
const found = (server: DatabaseServer, health: ServerHealth) => server.recordCheck(health, clock.now());

/** The server a runner of the router's connects to. */
const serverOf = (servers: DatabaseServers, runner: QueryRunner) =>
  servers.all.find((server) => server.dataSource === runner.dataSource)!.name;

/** A statement that the server answers as `answer` does, sent as the session sends every statement. */
const statement = <T>(session: ReadSession, answer: () => Promise<T>): Promise<T> => {
  jest.spyOn(session.runner, 'query').mockImplementationOnce(answer as () => Promise<never>);
  return session.read<[T]>('page', [['SELECT 1', []]]).then(([result]) => result);
};

/** How far behind an export's first batch says its server may be. */
const firstBatchBehind = (pinned: ReturnType<ReadRouter['pinned']>) =>
  pinned.batch((session) => Promise.resolve(session.behindSeconds));

/** Runs one request and tells which server its statements ran on. */
const servedBy = ({ reads, servers }: { reads: ReadRouter; servers: DatabaseServers }) =>
  reads.unitOfWork(({ runner }) => Promise.resolve(serverOf(servers, runner)));

const connectionReset = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });

/** A server's catalog as the background read finds it: the orders table with these indexes, and about this many rows. */
const holding = (server: DatabaseServer, indexes: string[], rows = 10_000_000) =>
  server.recordCatalog(
    catalogOf(
      ['PRIMARY', ...indexes].map(
        (indexName) => ({ tableName: 'orders', estimatedRows: rows, indexName }) as unknown as CatalogRow,
      ),
      // Routing reads no isolation.
      [],
    ),
  );
/** A shape only an index named `x` bounds, as the listing would say of a sort by price. */
const needsX: ServerRequirement = { table: 'orders', anyIndexOf: ['x'], sortsWholeUpTo: 0, heldBeforeRead: false };

describe('ReadRouter', () => {
  let warnings: jest.SpiedFunction<Logger['warn']>;

  beforeEach(() => {
    // Captured rather than printed: what is logged, and how often, is part of the behaviour.
    warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  });

  afterEach(() => {
    jest.restoreAllMocks();
  });

  describe('by what each server holds (docs/API.md §14)', () => {
    it('sends a shape only to the servers that hold what it needs', async () => {
      const setup = router();
      const { reads, servers, one, two } = setup;
      found(one, healthy);
      found(two, healthy);
      holding(two, ['x']);
      const served = [];
      for (let index = 0; index < 4; index += 1) {
        served.push(
          await reads.unitOfWork(({ runner }) => Promise.resolve(serverOf(servers, runner)), { required: needsX }),
        );
      }
      expect(served).toEqual(['replica-2', 'replica-2', 'replica-2', 'replica-2']);
    });

    it('refuses, without running the request, when no serving server holds it', async () => {
      const setup = router();
      found(setup.one, healthy);
      const work = jest.fn(() => Promise.resolve('read'));
      await expect(setup.reads.unitOfWork(work, { required: needsX })).rejects.toBeInstanceOf(NoCapableServerException);
      expect(() => setup.reads.pinned({ required: needsX })).toThrow(NoCapableServerException);
      expect(work).not.toHaveBeenCalled();
    });
  });

  describe('when every server that can serve a shape is behind (docs/API.md §18)', () => {
    // How far behind grows with the time since the check: the test decides when time passes.
    beforeEach(() => {
      jest.useFakeTimers(CLOCK_ONLY);
      // A replica seconds behind does not apply the primary's position within DB_REPLICA_WAIT_MS.
      jest.spyOn(ReadSession.prototype, 'waitFor').mockResolvedValue(false);
    });
    afterEach(() => {
      jest.useRealTimers();
    });

    /** Which server a shape only `x` bounds was read from, and how far behind the request was told it is. */
    const readNeedingX = ({ reads, servers }: ReturnType<typeof router>) =>
      reads.unitOfWork(
        ({ runner, behindSeconds }) => Promise.resolve({ server: serverOf(servers, runner), behindSeconds }),
        { required: needsX },
      );

    it('reads from the least-behind replica that holds it, and tells how far behind it is', async () => {
      const setup = router();
      holding(setup.one, ['x']);
      holding(setup.two, ['x']);
      found(setup.one, { ...behind, lagSeconds: 19 });
      // Stopped, but its lag is still known from the primary's positions: it is a candidate like any other.
      found(setup.two, { ...behind, replicating: false, lagSeconds: 9, problem: 'replication threads IO=Yes SQL=No' });
      await expect(readNeedingX(setup)).resolves.toEqual({ server: 'replica-2', behindSeconds: 9 });
      await expect(firstBatchBehind(setup.reads.pinned({ required: needsX }))).resolves.toBe(9);
    });

    it('says nothing of lag when a replica within DB_REPLICA_MAX_LAG_S serves', async () => {
      const setup = router();
      holding(setup.one, ['x']);
      found(setup.one, { ...healthy, lagSeconds: 4 });
      await expect(readNeedingX(setup)).resolves.toEqual({ server: 'replica-1', behindSeconds: undefined });
      await expect(firstBatchBehind(setup.reads.pinned({ required: needsX }))).resolves.toBeUndefined();
    });

    it('counts the time since the last check in how far behind the replica may be', async () => {
      const setup = router();
      holding(setup.one, ['x']);
      found(setup.one, { ...behind, replicating: false, lagSeconds: 7 });
      jest.advanceTimersByTime(800);
      await expect(readNeedingX(setup)).resolves.toEqual({ server: 'replica-1', behindSeconds: 7.8 });
    });

    it('answers 503 of its own, with Retry-After, past DB_REPLICA_MAX_STALENESS_S or with none answering', async () => {
      const setup = router();
      holding(setup.one, ['x']);
      holding(setup.two, ['x']);
      found(setup.one, { ...behind, lagSeconds: 61 });
      found(setup.two, { answering: false, replicating: false, problem: 'ECONNREFUSED' });
      const work = jest.fn(() => Promise.resolve('read'));
      const refused = await setup.reads.unitOfWork(work, { required: needsX }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ReplicasBehindError);
      expect(refused).toMatchObject({ behindSeconds: 61, maxStalenessSeconds: 60 });
      expect(() => setup.reads.pinned({ required: needsX })).toThrow(ReplicasBehindError);
      found(setup.one, { answering: false, replicating: false, problem: 'ECONNREFUSED' });
      await expect(setup.reads.unitOfWork(work, { required: needsX })).rejects.toBeInstanceOf(ReplicasBehindError);
      expect(work).not.toHaveBeenCalled();
    });

    it('still refuses as too broad what no configured server holds, however fresh', async () => {
      const setup = router();
      found(setup.one, { ...behind, lagSeconds: 30 });
      await expect(readNeedingX(setup)).rejects.toBeInstanceOf(NoCapableServerException);
    });

    it('keeps the fresh-first rule for what the primary serves: no replica behind is read from', async () => {
      const setup = router();
      found(setup.one, { ...behind, lagSeconds: 30 });
      await expect(servedBy(setup)).resolves.toBe('primary');
    });

    it('still reads a shape the primary can serve from the primary when the replicas cannot serve it', async () => {
      const setup = router();
      const { reads, servers, primary } = setup;
      holding(primary, [], 500_000);
      found(setup.one, healthy);
      const smallTable: ServerRequirement = {
        table: 'orders',
        anyIndexOf: [],
        sortsWholeUpTo: 1_000_000,
        heldBeforeRead: false,
      };
      expect(
        await reads.unitOfWork(({ runner }) => Promise.resolve(serverOf(servers, runner)), {
          required: smallTable,
        }),
      ).toBe('primary');
    });
  });

  describe('a read reflects every write committed before it came (docs/API.md §19)', () => {
    /** A replica healthy by DB_REPLICA_MAX_LAG_S that has not applied the primary's newest transactions. */
    const secondsBehind: ServerHealth = { ...behind, lagSeconds: 1.2 };
    const readOf = (setup: ReturnType<typeof router>, serves?: ServerRequirement, writerPosition?: string) =>
      setup.reads.unitOfWork(
        ({ runner, behindSeconds }) => Promise.resolve({ server: serverOf(setup.servers, runner), behindSeconds }),
        { required: serves, writerPosition },
      );
    const positionReads = ({ variables }: ReturnType<typeof router>) =>
      variables.mock.calls.filter(([sql]) => sql.includes('gtid_binlog_pos')).length;
    /** A read's attempts by server, the first `failing` of them failing as a connection reset; and how far behind. */
    const attemptsOf = async (setup: ReturnType<typeof router>, failing = 0) => {
      const attempts: string[] = [];
      const served = await setup.reads.unitOfWork(({ runner, behindSeconds }) => {
        attempts.push(serverOf(setup.servers, runner));
        return attempts.length <= failing ? Promise.reject(connectionReset()) : Promise.resolve(behindSeconds);
      });
      return { attempts, served };
    };
    const historyReads = ({ variables }: ReturnType<typeof router>) =>
      variables.mock.calls.filter(([sql]) => sql.includes('gtid_binlog_state')).length;

    it('reads from a replica known to hold the primary’s position at once, with one position read', async () => {
      const setup = router();
      const wait = jest.spyOn(ReadSession.prototype, 'waitFor');
      found(setup.one, healthy);
      await expect(readOf(setup)).resolves.toEqual({ server: 'replica-1', behindSeconds: undefined });
      expect(wait).not.toHaveBeenCalled();
      expect(positionReads(setup)).toBe(1);
      expect(setup.served).toMatchObject({ replica: 1, primary: 0 });
    });

    it('waits for a replica that had not applied it, and then knows it has', async () => {
      const setup = router();
      // The replica applies the primary's position while the read waits.
      const wait = jest.spyOn(ReadSession.prototype, 'waitFor').mockResolvedValue(true);
      found(setup.one, secondsBehind);
      await expect(readOf(setup)).resolves.toEqual({ server: 'replica-1', behindSeconds: undefined });
      expect(wait).toHaveBeenCalledTimes(1);
      expect(wait.mock.calls[0][1].text).toBe(PRIMARY_POSITION);
      expect(wait.mock.calls[0][2]).toBe(50);
      await expect(readOf(setup)).resolves.toEqual({ server: 'replica-1', behindSeconds: undefined });
      expect(wait).toHaveBeenCalledTimes(1);
      expect(setup.served).toMatchObject({ 'replica-after-wait': 1, replica: 1 });
    });

    it('reads what the primary can serve from the primary when the replica has not caught up within the bound', async () => {
      const setup = router();
      // The replica is seconds behind: the wait of DB_REPLICA_WAIT_MS ends with the position not applied.
      jest.spyOn(ReadSession.prototype, 'waitFor').mockResolvedValue(false);
      found(setup.one, secondsBehind);
      const { attempts, served } = await attemptsOf(setup);
      expect(attempts).toEqual(['primary']);
      expect(served).toBeUndefined();
      expect(setup.served).toMatchObject({ 'primary-after-wait': 1, stale: 0 });
      // Not the replica's failure: it stays in turn.
      expect(setup.one.isHealthyReplica()).toBe(true);
    });

    it('serves from the replica, saying how far behind, when the primary standing in for it fails, blaming the primary', async () => {
      const setup = router();
      // The replica has not applied the primary's position within the bound: the primary stands in, and fails.
      jest.spyOn(ReadSession.prototype, 'waitFor').mockResolvedValue(false);
      found(setup.one, secondsBehind);
      const { attempts, served } = await attemptsOf(setup, 1);
      expect(attempts).toEqual(['primary', 'replica-1']);
      expect(served).toBeGreaterThan(0);
      expect(setup.served).toMatchObject({ stale: 1, 'primary-after-wait': 0 });
      expect(setup.primary.health.answering).toBe(false);
      expect(setup.one.health.answering).toBe(true);
    });

    it('retries a writer’s read on a replica behind when the primary fails under it, saying how far behind, never a 500', async () => {
      const setup = router();
      // The replica is past DB_REPLICA_MAX_LAG_S, so the primary serves first; the replica cannot apply the position.
      jest.spyOn(ReadSession.prototype, 'waitFor').mockResolvedValue(false);
      found(setup.one, { ...behind, lagSeconds: 8 });
      const attempts: string[] = [];
      const served = await setup.reads.unitOfWork(
        ({ runner, behindSeconds }) => {
          attempts.push(serverOf(setup.servers, runner));
          return attempts.length === 1 ? Promise.reject(connectionReset()) : Promise.resolve(behindSeconds);
        },
        { writerPosition: '0-1-450' },
      );
      expect(attempts).toEqual(['primary', 'replica-1']);
      expect(served).toBeGreaterThanOrEqual(8);
      expect(setup.served).toMatchObject({ stale: 1, 'primary-after-wait': 0 });
    });

    it('says a shape only replicas serve may be behind when its replica has not applied it, whatever its lag', async () => {
      const setup = router();
      jest.spyOn(ReadSession.prototype, 'waitFor').mockResolvedValue(false);
      holding(setup.one, ['x']);
      found(setup.one, { ...behind, lagSeconds: 0 });
      const { server, behindSeconds } = await readOf(setup, needsX);
      expect(server).toBe('replica-1');
      expect(behindSeconds).toBeGreaterThan(0);
      expect(setup.served).toMatchObject({ stale: 1 });
    });

    it('says a replica’s answer may be behind while the primary does not answer', async () => {
      const setup = router();
      found(setup.primary, { answering: false, replicating: false, problem: 'ECONNREFUSED' });
      found(setup.one, healthy);
      const { server, behindSeconds } = await readOf(setup);
      expect(server).toBe('replica-1');
      expect(behindSeconds).toBeGreaterThan(0);
      expect(positionReads(setup)).toBe(0);
    });

    it('serves a writer’s position from a replica that holds it, checked against the primary’s history, not its newest position', async () => {
      const setup = router();
      // Seconds behind: the primary's newest position is not applied within the bound.
      jest.spyOn(ReadSession.prototype, 'waitFor').mockResolvedValue(false);
      found(setup.one, secondsBehind);
      // Learns the servers' kind from the primary once.
      await readOf(setup);
      const before = positionReads(setup);
      const { server, behindSeconds } = await readOf(setup, undefined, '0-1-390');
      expect(server).toBe('replica-1');
      expect(positionReads(setup)).toBe(before);
      expect(historyReads(setup)).toBe(1);
      // That write is there; every other write the primary had is not shown to be.
      expect(behindSeconds).toBeGreaterThan(0);
      expect(setup.served).toMatchObject({ 'writer-position': 1 });
    });

    it('refuses a writer’s position the primary’s history lost, though its sequence is passed (docs/API.md §20)', async () => {
      const setup = router();
      found(setup.one, healthy);
      // Server 2 wrote up to 0-2-300 before server 1 took over: 0-2-310 went with it, though 310 < 500.
      await expect(readOf(setup, undefined, '0-2-310')).rejects.toBeInstanceOf(LostPositionError);
      await expect(readOf(setup, undefined, '0-2-300')).resolves.toMatchObject({ server: 'replica-1' });
    });

    it('checks a writer’s position when the primary serves, as when a replica does', async () => {
      const setup = router();
      // No replica in turn: the primary serves every read.
      found(setup.one, { ...healthy, replicating: false });
      found(setup.two, { ...healthy, replicating: false });
      await expect(readOf(setup, undefined, '0-1-450')).resolves.toEqual({
        server: 'primary',
        behindSeconds: undefined,
      });
      await expect(readOf(setup, undefined, '0-1-501')).rejects.toBeInstanceOf(UncommittedPositionError);
      await expect(readOf(setup, undefined, '0-2-301')).rejects.toBeInstanceOf(LostPositionError);
    });

    it('serves a writer’s position from the replica, saying it may be behind, when the primary’s cannot be read', async () => {
      const setup = router();
      // Seconds behind: the primary's newest position is not applied within the bound.
      jest.spyOn(ReadSession.prototype, 'waitFor').mockResolvedValue(false);
      found(setup.one, secondsBehind);
      await readOf(setup);
      // The primary stops answering its position reads; its health check has not found out yet.
      setup.variables.mockRejectedValue(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
      const { server, behindSeconds } = await readOf(setup, undefined, '0-1-450');
      expect(server).toBe('replica-1');
      expect(behindSeconds).toBeGreaterThan(0);
      // Not the replica's failure.
      expect(setup.one.health.answering).toBe(true);
    });

    it('says even the primary’s page may be behind when the primary’s history cannot be read for a writer’s position', async () => {
      const setup = router();
      found(setup.one, { ...healthy, replicating: false });
      found(setup.two, { ...healthy, replicating: false });
      await readOf(setup);
      // The history read fails (its connection went with a moved address); the page itself is read.
      setup.variables.mockRejectedValue(
        Object.assign(new Error('Connection lost'), { code: 'PROTOCOL_CONNECTION_LOST' }),
      );
      const { server, behindSeconds } = await readOf(setup, undefined, '0-1-450');
      expect(server).toBe('primary');
      // The write is not shown to be there: a write lost in a failover must never read as present.
      expect(behindSeconds).toBeGreaterThan(0);
      expect(setup.served).toMatchObject({ stale: 1 });
    });

    it('refuses a writer’s position of another kind of server, and one ahead of the primary', async () => {
      const setup = router();
      found(setup.one, healthy);
      await expect(readOf(setup, undefined, '3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5')).rejects.toBeInstanceOf(
        MalformedPositionError,
      );
      await expect(readOf(setup, undefined, '0-1-501')).rejects.toBeInstanceOf(UncommittedPositionError);
    });

    /** The primary as server 1 and `replica` following it, as the background checks record them. */
    const followingPrimary = (setup: ReturnType<typeof router>, replica: DatabaseServer, health: ServerHealth) => {
      found(setup.primary, { answering: true, replicating: false, role: { serverId: 1, writable: true } });
      found(replica, { ...health, role: { serverId: 11, writable: false, replicating: true, follows: 1 } });
    };

    it('serves a writer’s position a replica of the followed primary has applied with no statement to the primary', async () => {
      const setup = router();
      followingPrimary(setup, setup.one, healthy);
      // Learns the servers' kind from the primary once, as the first request after start does.
      await readOf(setup, undefined, '0-1-10');
      setup.variables.mockClear();
      for (const position of ['0-1-400', '0-1-450', '0-1-500']) {
        await expect(readOf(setup, undefined, position)).resolves.toMatchObject({ server: 'replica-1' });
      }
      expect(setup.variables).not.toHaveBeenCalled();
      expect(setup.served).toMatchObject({ 'writer-position': 4 });
      // Another server's write shares the domain's sequence: only the history tells whether it was lost with it.
      await expect(readOf(setup, undefined, '0-2-310')).rejects.toBeInstanceOf(LostPositionError);
      expect(historyReads(setup)).toBe(1);
    });

    it('checks against the history a replica of a deposed lineage applied, and a lost write is still refused', async () => {
      const setup = router();
      followingPrimary(setup, setup.one, healthy);
      // Server 1 was left for another: what its replicas applied does not show the followed primary holds it.
      setup.servers.deposedIds.add(1);
      await expect(readOf(setup, undefined, '0-1-400')).resolves.toMatchObject({ server: 'replica-1' });
      expect(historyReads(setup)).toBe(1);
    });

    it('reads the primary’s history once a health round, and afresh only for a write newer than that read', async () => {
      jest.useFakeTimers(CLOCK_ONLY);
      const setup = router();
      // A replica that has applied none of these: each position is checked against the history.
      jest.spyOn(ReadSession.prototype, 'waitFor').mockResolvedValue(true);
      found(setup.one, { ...healthy, position: parseGtidPosition('0-1-1') });
      for (const position of ['0-1-100', '0-1-200', '0-2-300', '0-1-500']) await readOf(setup, undefined, position);
      expect(historyReads(setup)).toBe(1);
      // A write the round's history does not hold yet: read afresh, and then refused as ahead of the primary.
      await expect(readOf(setup, undefined, '0-1-501')).rejects.toBeInstanceOf(UncommittedPositionError);
      expect(historyReads(setup)).toBe(2);
      // The next round reads it again.
      jest.advanceTimersByTime(1500);
      await readOf(setup, undefined, '0-1-450');
      expect(historyReads(setup)).toBe(3);
      jest.useRealTimers();
    });

    it('shares one position read among the requests that came while another ran', async () => {
      const setup = router();
      found(setup.one, healthy);
      await Promise.all(Array.from({ length: 20 }, () => readOf(setup)));
      // The first request's read, and one more for every request that came while it ran.
      expect(positionReads(setup)).toBe(2);
    });
  });

  it('spreads requests over the healthy replicas in turn, never the primary', async () => {
    const setup = router();
    const { one, two } = setup;
    found(one, healthy);
    found(two, healthy);
    const served = [];
    for (let index = 0; index < 4; index += 1) served.push(await servedBy(setup));
    expect(served.sort()).toEqual(['replica-1', 'replica-1', 'replica-2', 'replica-2']);
  });

  it('skips a replica past DB_REPLICA_MAX_LAG_S, one not replicating and one whose lag is unknown', async () => {
    const setup = router();
    const { one, two } = setup;
    found(one, { ...behind, lagSeconds: 5.5 });
    found(two, { ...healthy, replicating: false, problem: 'replication threads IO=Yes SQL=No' });
    await expect(servedBy(setup)).resolves.toBe('primary');
    found(two, { ...healthy, lagSeconds: undefined });
    await expect(servedBy(setup)).resolves.toBe('primary');
    found(one, { ...healthy, lagSeconds: 5 });
    await expect(servedBy(setup)).resolves.toBe('replica-1');
  });

  it('reads from the freshest replica that answers when the primary does not', async () => {
    const setup = router();
    const { servers, primary, one, two } = setup;
    found(primary, { answering: false, replicating: false, problem: 'ECONNREFUSED' });
    // The primary is gone, so replication has stopped on both; replica-2 had applied more.
    found(one, { answering: true, replicating: false, position: parseGtidPosition('0-1-90') });
    found(two, { answering: true, replicating: false, position: parseGtidPosition('0-1-120') });
    await expect(servedBy(setup)).resolves.toBe('replica-2');
    expect(servers.servingServer()?.name).toBe('replica-1');
  });

  it('marks a replica that fails mid-request down at once and runs the request once more elsewhere', async () => {
    const setup = router();
    const { reads, servers, one, two } = setup;
    found(one, healthy);
    const attempts: string[] = [];
    const served = await reads.unitOfWork(({ runner }) => {
      attempts.push(serverOf(servers, runner));
      if (attempts.length === 1) return Promise.reject(connectionReset());
      return Promise.resolve(serverOf(servers, runner));
    });
    expect(attempts).toEqual(['replica-1', 'primary']);
    expect(served).toBe('primary');
    expect(one.health.answering).toBe(false);
    // Until a check finds it answering again, it is not read from.
    found(two, healthy);
    await expect(servedBy(setup)).resolves.toBe('replica-2');
  });

  it('moves an export’s reads to another server when asked after its server failed, and only then', async () => {
    const { reads, servers, one } = router();
    found(one, healthy);
    const exported = reads.pinned();
    const attempts: string[] = [];
    // The first read's connection is reset, as a server killed under it would reset it.
    const failure = await exported
      .batch(({ runner }) => {
        attempts.push(serverOf(servers, runner));
        return Promise.reject(connectionReset());
      })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DatabaseUnavailableError);
    // Not moved by itself: whether anything was sent is the caller's to know.
    expect(attempts).toEqual(['replica-1']);
    const wrongQuery = Object.assign(new Error('You have an error in your SQL syntax'), { code: 'ER_PARSE_ERROR' });
    expect(exported.moveAfter(wrongQuery)).toBe(false);
    expect(exported.moveAfter(failure)).toBe(true);
    expect(one.health.answering).toBe(false);
    await expect(exported.batch(({ runner }) => Promise.resolve(serverOf(servers, runner)))).resolves.toBe('primary');
    // With no other server answering, there is nowhere to move to.
    expect(exported.moveAfter(new DatabaseUnavailableError(connectionReset()))).toBe(false);
  });

  it('does not retry a request whose own deadline passed, nor a failure that is not the server’s', async () => {
    const { reads, one } = router();
    found(one, healthy);
    let attempts = 0;
    const timedOut = new DatabaseUnavailableError(new Error('deadline'), true);
    await expect(
      reads.unitOfWork(() => {
        attempts += 1;
        return Promise.reject(timedOut);
      }),
    ).rejects.toBe(timedOut);
    const wrongQuery = Object.assign(new Error('You have an error in your SQL syntax'), { code: 'ER_PARSE_ERROR' });
    await expect(
      reads.unitOfWork(() => {
        attempts += 1;
        return Promise.reject(wrongQuery);
      }),
    ).rejects.toBe(wrongQuery);
    expect(attempts).toBe(2);
    expect(one.health.answering).toBe(true);
  });

  it('answers the 503 when the one other server fails too', async () => {
    const { reads, one } = router();
    found(one, healthy);
    let attempts = 0;
    await expect(
      reads.unitOfWork(() => {
        attempts += 1;
        return Promise.reject(connectionReset());
      }),
    ).rejects.toBeInstanceOf(DatabaseUnavailableError);
    // Tried once more, never a third time.
    expect(attempts).toBe(2);
    // A further request finds nothing answering, tries the primary as the last resort and fails the same way.
    await expect(reads.unitOfWork(() => Promise.reject(connectionReset()))).rejects.toBeInstanceOf(
      DatabaseUnavailableError,
    );
    // Each server's change was logged once, not once per failing request.
    expect(warnings.mock.calls.map(([message]) => String(message).split(':')[0])).toEqual(['replica-1', 'primary']);
  });

  describe('the request deadline and the failures clients see (docs/API.md §10)', () => {
    it('turns a driver failure that means "not now" into a 503 with Retry-After, keeping the cause for the log', async () => {
      // No replica answers: nothing to retry on, so the primary's failure is the answer.
      const { reads } = router();
      const refused = new QueryFailedError(
        'SELECT 1',
        [],
        Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }),
      );
      const error = await reads.unitOfWork(() => Promise.reject(refused)).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DatabaseUnavailableError);
      expect(error).toMatchObject({ timedOut: false });
      expect((error as DatabaseUnavailableError).cause).toBe(refused);
    });

    it('leaves any other failure alone (a 500)', async () => {
      const bug = new TypeError('x is undefined');
      await expect(router().reads.unitOfWork(() => Promise.reject(bug))).rejects.toBe(bug);
    });

    describe('with the clock under the test’s control', () => {
      beforeEach(() => {
        jest.useFakeTimers(CLOCK_ONLY);
      });

      afterEach(() => {
        jest.useRealTimers();
      });

      it('gives up early on a replica that answers nothing, marks it down and retries on the primary in time', async () => {
        const { reads, servers, one } = router(2000);
        found(one, healthy);
        // Hung: the check sent when its statement is overdue goes unanswered too.
        const asked = jest.spyOn(one, 'answersWithin').mockResolvedValue(false);
        const attempts: string[] = [];
        const served = reads.unitOfWork((session) => {
          attempts.push(serverOf(servers, session.runner));
          // The replica hangs; the primary answers at once.
          return attempts.length === 1
            ? statement(session, () => new Promise<string>(() => undefined))
            : statement(session, () => Promise.resolve('page'));
        });
        // No statement times known yet: the give-up time is its ceiling, a quarter of the budget.
        await jest.advanceTimersByTimeAsync(Math.ceil(giveUpAfterMs(undefined, 2000)));
        await expect(served).resolves.toBe('page');
        expect(attempts).toEqual(['replica-1', 'primary']);
        expect(asked).toHaveBeenCalledWith(250);
        expect(one.health.answering).toBe(false);
        expect(warnings.mock.calls.map(([message]) => String(message))).toEqual([
          expect.stringMatching(
            /^replica-1: not answering \(failed during a request: nothing answered within 500 ms, nor a check within 250 ms\)/,
          ),
        ]);
      });

      it('waits for a slow statement on a server that is silent only because nothing else is asked of it', async () => {
        const { reads, servers, one } = router(2000);
        found(one, healthy);
        // Nothing else runs there, but the check sent when the statement is overdue is answered: the server runs.
        const asked = jest.spyOn(one, 'answersWithin').mockResolvedValue(true);
        const served = reads.unitOfWork((session) =>
          statement(session, () => new Promise<string>((resolve) => setTimeout(() => resolve('slow page'), 1500))).then(
            (page) => `${page} from ${serverOf(servers, session.runner)}`,
          ),
        );
        await jest.advanceTimersByTimeAsync(1500);
        await expect(served).resolves.toBe('slow page from replica-1');
        expect(asked).toHaveBeenCalledTimes(1);
        expect(one.health.answering).toBe(true);
        expect(warnings).not.toHaveBeenCalled();
      });

      it('does not give up on a slow statement while the server answers others, nor on the last server', async () => {
        const { reads, servers, one } = router(2000);
        found(one, healthy);
        const slow = reads.unitOfWork((session) =>
          statement(session, () => new Promise<string>((resolve) => setTimeout(() => resolve('slow page'), 1500))),
        );
        // Meanwhile the replica answers other statements: it is slow, not hung.
        const others = setInterval(() => one.timings.answered(one.timings.sent()), 100);
        await jest.advanceTimersByTimeAsync(1500);
        clearInterval(others);
        await expect(slow).resolves.toBe('slow page');
        expect(one.health.answering).toBe(true);
        // The replica stops answering: the primary is the last server, and its statements are waited for.
        found(one, { answering: false, replicating: false, problem: 'ECONNREFUSED' });
        const onPrimary = reads.unitOfWork((session) =>
          statement(session, () => new Promise<string>((resolve) => setTimeout(() => resolve('late page'), 1500))),
        );
        await jest.advanceTimersByTimeAsync(1500);
        await expect(onPrimary).resolves.toBe('late page');
        expect(servers.primary.health.answering).toBe(true);
      });

      it('does not take a statement that outlives the deadline for a failure of its server', async () => {
        const { reads, one } = router(2000);
        found(one, healthy);
        holding(one, ['x']);
        // The driver's backstop timeout fires just after the deadline, on a statement slow by its shape.
        const driverTimeout = Object.assign(new Error('Query inactivity timeout'), {
          code: 'PROTOCOL_SEQUENCE_TIMEOUT',
        });
        const answer = reads
          .unitOfWork(
            (session) =>
              statement(session, () => new Promise((_, reject) => setTimeout(() => reject(driverTimeout), 2010))),
            { required: needsX },
          )
          .catch((caught: unknown) => caught);
        await jest.advanceTimersByTimeAsync(2010);
        // Answered at the deadline, as the deadline judges it; the driver's error comes after and changes nothing.
        expect(((await answer) as DatabaseUnavailableError).timedOut).toBe(true);
        await jest.advanceTimersByTimeAsync(10);
        expect(one.health.answering).toBe(true);
        expect(warnings).not.toHaveBeenCalled();
      });

      it('tells an export batch that outlives the deadline only once its statement has ended, as the deadline judges it', async () => {
        const { reads, one } = router(2000);
        found(one, healthy);
        // The driver's backstop timeout ends the statement just after the deadline: then its connection is free.
        const driverTimeout = Object.assign(new Error('Query inactivity timeout'), {
          code: 'PROTOCOL_SEQUENCE_TIMEOUT',
        });
        let told = false;
        const batch = reads
          .pinned()
          .batch((session) =>
            statement(session, () => new Promise((_, reject) => setTimeout(() => reject(driverTimeout), 2010))),
          )
          .catch((caught: unknown) => caught)
          .finally(() => (told = true));
        await jest.advanceTimersByTimeAsync(2000);
        expect(told).toBe(false);
        await jest.advanceTimersByTimeAsync(10);
        expect(((await batch) as DatabaseUnavailableError).timedOut).toBe(true);
      });

      it('answers 503 database timeout once DB_QUERY_TIMEOUT_MS has passed with no server answering, retrying once', async () => {
        const { reads, one } = router(100);
        found(one, healthy);
        let attempts = 0;
        const error = reads
          .unitOfWork((session) => {
            attempts += 1;
            return statement(session, () => new Promise(() => undefined));
          })
          .catch((caught: unknown) => caught);
        await jest.advanceTimersByTimeAsync(100);
        await expect(error).resolves.toBeInstanceOf(DatabaseUnavailableError);
        expect(((await error) as DatabaseUnavailableError).timedOut).toBe(true);
        expect(attempts).toBe(2);
      });

      it('answers 503 busy, not database, when the deadline passes while the server keeps answering promptly', async () => {
        const { reads, primary } = router(100);
        // No replica is healthy: the primary serves, with nowhere to retry.
        const busy = reads
          .unitOfWork(async (session) => {
            // Quick statements, one after another, until the budget is gone: the time is this process's own.
            for (;;) await statement(session, () => new Promise((resolve) => setTimeout(resolve, 2)));
          })
          .catch((caught: unknown) => caught);
        await jest.advanceTimersByTimeAsync(100);
        await expect(busy).resolves.toBeInstanceOf(DatabaseSaturatedError);
        expect(primary.health.answering).toBe(true);
      });
    });
  });
});
