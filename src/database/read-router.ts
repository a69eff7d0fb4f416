import { Injectable } from '@nestjs/common';
import type { QueryRunner } from 'typeorm';
import { ProblemException, problemOf } from '../common/problem/problem-details';
import {
  DatabaseSaturatedException,
  DatabaseUnavailableException,
  isDatabaseUnavailable,
  isMissingIndex,
  reasonOf,
} from './database-errors';
import type { DatabaseServer } from './database-server';
import { DatabaseServers } from './database-servers';
import { progressOf } from './replication-lag';
import { RequestDeadline, RequestDeadlines } from './request-deadline';
import { ServerAttempt, ServerNotAnsweringException } from './server-attempt';
import type { ServerCatalog } from './server-catalog';

/**
 * What a request's statements run on: one connection of one server, and the
 * time the request has left. Every statement goes through `statement`, which
 * times it for that server and, on a first attempt, gives up on a server
 * that stopped answering.
 */
export interface ReadSession {
  runner: QueryRunner;
  deadline: RequestDeadline;
  /** What the server holds: a statement may name only indexes it has. */
  catalog: ServerCatalog;
  /**
   * docs/API.md §18: at most how many seconds behind the primary the data read here is, when it is read from a
   * replica past DB_REPLICA_MAX_LAG_S because no fresher server could serve the request; otherwise undefined.
   */
  readonly behindSeconds?: number;
  statement<T>(execute: () => Promise<T>): Promise<T>;
  /**
   * One statement on the session's connection, through `statement`; `last`: the work sends nothing more here, so
   * the snapshot, if one is held, ends in the same round trip.
   */
  query<T>(sql: string, parameters: unknown[], options?: { last?: boolean }): Promise<T>;
  /** The statements from here on read one snapshot, until the session's work ends (docs/adr/0015). */
  beginSnapshot(): void;
}

/** Reads kept on one server, each call with its own connection and deadline; `cancelled` stops the one running. */
export interface PinnedReads {
  /** As of the pick, how far behind the server is, when it is a replica behind (ReadSession.behindSeconds). */
  readonly behindSeconds?: number;
  withConnection<T>(work: (session: ReadSession) => Promise<T>, cancelled?: AbortSignal): Promise<T>;
}

/**
 * Whether a server can answer a request within its deadline, from what it holds (docs/API.md §14): the feature
 * knows which structures its statements need; routing knows which server holds them.
 */
export type ServerCapability = (catalog: ServerCatalog) => boolean;

const EVERY_SERVER: ServerCapability = () => true;

/**
 * No server that could answer the request within bounds is serving: neither the primary nor a healthy replica
 * holds what it needs. Thrown before any statement is sent; the feature says what would make it answerable.
 */
export class NoCapableServerException extends Error {
  constructor() {
    super('No server serving now holds what this request needs');
  }
}

/**
 * docs/API.md §18: some replica holds what the request needs, but every one that does is further behind than
 * DB_REPLICA_MAX_STALENESS_S or does not answer. Not the client's doing, and not for long: a 503 with Retry-After.
 */
export class ReplicasBehindException extends ProblemException {
  constructor(behindSeconds: number | undefined, maxStalenessSeconds: number) {
    super(
      problemOf('replicasBehind', {
        detail:
          behindSeconds === undefined
            ? 'Only a read replica can serve this sort and filter, and none that can is answering with a known lag; try again shortly'
            : `Only a read replica can serve this sort and filter, and the least behind of those that can is ${Math.ceil(behindSeconds)} s behind the primary, past DB_REPLICA_MAX_STALENESS_S=${maxStalenessSeconds}; try again shortly`,
      }),
    );
  }
}

/** The server a request reads from, and how far behind it is when it is a replica chosen past DB_REPLICA_MAX_LAG_S. */
interface Choice {
  server: DatabaseServer;
  behindSeconds?: number;
}

/** A driver failure that means "not now" becomes the 503 of docs/API.md §10; anything else stays what it is (a 500). */
async function answered<T>(reads: () => Promise<T>): Promise<T> {
  try {
    return await reads();
  } catch (error) {
    throw !(error instanceof ProblemException) && isDatabaseUnavailable(error)
      ? new DatabaseUnavailableException(error)
      : error;
  }
}

/**
 * docs/API.md §11, read routing: which database server a listing request reads
 * from. A request runs all its statements on one connection of one server: a
 * healthy replica in turn, else the primary, else (the primary down) the
 * freshest replica that answers. A server failing during a request is marked
 * down at once and the request is tried once more elsewhere, within the same
 * deadline; a first attempt on a server that stops answering is given up
 * early enough for the retry to fit (ServerAttempt). What is known of each
 * server's health comes from the DatabaseHealthMonitor; how long a request may
 * take, from its RequestDeadline.
 */
@Injectable()
export class ReadRouter {
  private nextReplica = 0;

  constructor(
    private readonly servers: DatabaseServers,
    private readonly deadlines: RequestDeadlines,
  ) {}

  /**
   * Runs a request's statements on one connection of the server routing
   * picks; if that server fails (refused, reset, timed out), runs them once
   * more on another. A driver failure that means "not now" becomes the 503 of
   * docs/API.md §10; anything else stays what it is (a 500).
   */
  async withConnection<T>(
    work: (session: ReadSession) => Promise<T>,
    serves: ServerCapability = EVERY_SERVER,
  ): Promise<T> {
    const first = this.pick(serves);
    const deadline = this.deadlines.start();
    return answered(() => deadline.race(this.route(work, deadline, first, serves)));
  }

  /**
   * docs/API.md §13: reads that must all come from one server, the one routing
   * picks now (an export's batches). Each `withConnection` is one batch: a
   * connection of that server and a deadline of its own. There is no retry
   * elsewhere, since another server may hold other data; a server failing
   * fails the reads.
   */
  pinned(serves: ServerCapability = EVERY_SERVER): PinnedReads {
    const { server, behindSeconds } = this.pick(serves);
    return {
      behindSeconds,
      withConnection: async (work, cancelled) => {
        const deadline = this.deadlines.start();
        const batch = server.admission.withConnection(
          (runner) => new ServerAttempt(runner, deadline, server, false, cancelled, behindSeconds).run(work),
          deadline,
          // A batch is not a request: how long it holds its connection says nothing of when the next request is answered.
          { paced: false },
        );
        try {
          return await answered(() => deadline.race(batch));
        } catch (error) {
          // Told only once its connection is back in the pool or closed (the driver's timeout, at the same budget,
          // ends a statement the server never answers): an export that fails holds nothing when its answer ends.
          await batch.catch(() => undefined);
          throw error;
        }
      },
    };
  }

  private async route<T>(
    work: (session: ReadSession) => Promise<T>,
    deadline: RequestDeadline,
    { server: first, behindSeconds }: Choice,
    serves: ServerCapability,
  ): Promise<T> {
    const attempt = (server: DatabaseServer, mayGiveUp: boolean, behind?: number) =>
      server.admission.withConnection(
        (runner) => new ServerAttempt(runner, deadline, server, mayGiveUp, undefined, behind).run(work),
        deadline,
      );
    // Giving up early only makes sense where another server could answer; the retry is the last word.
    const mayGiveUp = this.servers.all.some((server) => server !== first && server.canRead() && serves(server.catalog));
    try {
      return await attempt(first, mayGiveUp, behindSeconds);
    } catch (error) {
      // Out of time: the deadline has answered the request already. The driver's own timeout, its backstop, then
      // tells of a statement that took the whole budget (a shape slow on this server), not of a server that failed.
      if (deadline.remainingMs() <= 0) throw error;
      if (isMissingIndex(error)) {
        // Its indexes changed since they were read: forgotten until the next check reads them, and the request is
        // retried where it can be served. The server itself answers.
        first.forgetCatalog();
      } else {
        if (!this.isServerFailure(error)) throw error;
        // Readiness reads the same state: a failed server is not ready until a later check finds it answering.
        first.markFailed(error instanceof ServerNotAnsweringException ? error.why : reasonOf(error));
      }
      if (this.servers.replicas.length === 0) throw error;
      const capable = this.capableOf(serves);
      const second = capable.length > 0 ? this.pickAmong(capable, first) : first;
      // Nowhere else to go: for a server found not to hold what it was thought to, as if it had been known before.
      if (second === first) throw isMissingIndex(error) ? new NoCapableServerException() : error;
      return await attempt(second, false);
    }
  }

  /**
   * The server a request starts on, among those that can serve it. None fresh enough: the least-behind replica that
   * can (docs/API.md §18). None that holds what it needs: refused before any statement.
   */
  private pick(serves: ServerCapability): Choice {
    const capable = this.capableOf(serves);
    return capable.length > 0 ? { server: this.pickAmong(capable) } : this.leastBehind(serves);
  }

  /**
   * docs/API.md §18: every server that can serve the request is a replica behind by more than DB_REPLICA_MAX_LAG_S
   * (or stopped, or down). The query is not too broad, a server is behind: the least-behind one that answers serves,
   * within DB_REPLICA_MAX_STALENESS_S; past that, or with none answering, 503. Only where no server holds what the
   * request needs is it refused as too broad.
   */
  private leastBehind(serves: ServerCapability): Choice {
    const holders = this.servers.replicas.filter((replica) => serves(replica.catalog));
    if (holders.length === 0) throw new NoCapableServerException();
    let least: Choice | undefined;
    for (const server of holders) {
      const behindSeconds = server.canRead() ? server.behindSeconds() : undefined;
      if (behindSeconds !== undefined && (least === undefined || behindSeconds < least.behindSeconds!)) {
        least = { server, behindSeconds };
      }
    }
    const { replicaMaxStalenessSeconds } = this.servers;
    if (!least || least.behindSeconds! > replicaMaxStalenessSeconds) {
      throw new ReplicasBehindException(least?.behindSeconds, replicaMaxStalenessSeconds);
    }
    return least;
  }

  /**
   * Which servers can serve the request: every one that holds what it needs, when the primary does (a failure
   * of the primary is then the truthful answer); otherwise only the healthy replicas that do, since a replica
   * that lags, or does not answer, cannot stand in for what the primary cannot serve.
   */
  private capableOf(serves: ServerCapability): DatabaseServer[] {
    const { primary, replicas } = this.servers;
    if (serves(primary.catalog)) return this.servers.all.filter((server) => serves(server.catalog));
    return replicas.filter((replica) => replica.isHealthyReplica() && serves(replica.catalog));
  }

  /** A healthy replica in turn; else the primary; else the freshest replica that answers; else the primary anyway. */
  private pickAmong(servers: readonly DatabaseServer[], excluded?: DatabaseServer): DatabaseServer {
    const { primary } = this.servers;
    const replicas = servers.filter((server) => !server.isPrimary);
    const hasPrimary = servers.includes(primary);
    if (replicas.length === 0 && hasPrimary) return primary;
    const candidates = replicas.filter((replica) => replica !== excluded);
    const healthy = candidates.filter((replica) => replica.isHealthyReplica());
    if (healthy.length > 0) {
      this.nextReplica = (this.nextReplica + 1) % healthy.length;
      return healthy[this.nextReplica];
    }
    if (hasPrimary && primary !== excluded && primary.health.answering) return primary;
    const answering = candidates.filter((replica) => replica.canRead());
    if (answering.length > 0) {
      return answering.reduce((best, replica) =>
        progressOf(replica.health.position ?? new Map()) > progressOf(best.health.position ?? new Map())
          ? replica
          : best,
      );
    }
    // Nothing is known to answer: the primary's own failure is the most truthful answer.
    return hasPrimary ? primary : (excluded ?? servers[0]);
  }

  /** A failure of the server itself, not of this request's time or of the service's own capacity. */
  private isServerFailure(error: unknown): boolean {
    if (error instanceof DatabaseSaturatedException) return false;
    if (error instanceof DatabaseUnavailableException) return error.problem.reason !== 'timeout';
    return isDatabaseUnavailable(error);
  }
}
