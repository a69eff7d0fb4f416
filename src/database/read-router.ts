import { Injectable } from '@nestjs/common';
import type { QueryRunner } from 'typeorm';
import {
  DatabaseSaturatedError,
  DatabaseUnavailableError,
  isDatabaseUnavailable,
  isMissingIndex,
  reasonOf,
} from './database-errors';
import type { DatabaseServer } from './database-server';
import { DatabaseServers } from './database-servers';
import type { GtidDialect, ReplicationPosition } from './gtid';
import { writeVerdict } from './write-history';
import { PrimaryPositions } from './primary-positions';
import { progressOf } from './replication-lag';
import { RequestDeadline, RequestDeadlines } from './request-deadline';
import { ServerAttempt, ServerNotAnsweringError, type Statement } from './server-attempt';
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
  behindSeconds?: number;
  statement<T>(execute: () => Promise<T>): Promise<T>;
  /**
   * One statement on the session's connection, through `statement`; `last`: the work sends nothing more here, so
   * the snapshot, if one is held, ends in the same round trip.
   */
  query<T>(sql: string, parameters: unknown[], options?: { last?: boolean }): Promise<T>;
  /** Statements in one round trip where the server takes several (MySQL), as `query` sends one; each one's result. */
  queries<T extends unknown[]>(statements: readonly Statement[], options?: { last?: boolean }): Promise<T>;
  /** The statements from here on read one snapshot, until the session's work ends (docs/adr/0020). */
  beginSnapshot(): void;
}

/** Reads kept on one server, each call with its own connection and deadline; `cancelled` stops the one running. */
export interface PinnedReads {
  /** As of the first read, at most how far behind the data is, when it may not be current (ReadSession.behindSeconds). */
  readonly behindSeconds?: number;
  withConnection<T>(work: (session: ReadSession) => Promise<T>, cancelled?: AbortSignal): Promise<T>;
  /**
   * After `error` from a read, before anything read has been sent: when it is a failure of the server itself and
   * another server can serve, the reads start over there (the next call is a first read again). Whether they did.
   */
  moveAfter(error: unknown): boolean;
}

/**
 * What a server must hold to answer a request within its deadline (docs/API.md §14), as the feature names it: any one
 * of `anyIndexOf` on `table`, or a table of at most `sortsWholeUpTo` rows, which is sorted whole in time. Routing
 * checks it against what each server was last found to hold (`holds`).
 */
export interface ServerRequirement {
  readonly table: string;
  readonly anyIndexOf: readonly string[];
  readonly sortsWholeUpTo: number;
  /** Whether a server whose indexes were not read yet counts as holding one: those the schema gives every server. */
  readonly heldBeforeRead: boolean;
}

/** What any server answers in time: undefined stands for it. */
type Requirement = ServerRequirement | undefined;

/** Whether a server, as its catalog was last read, holds what a request requires. */
export function holds(catalog: ServerCatalog, requirement: Requirement): boolean {
  if (requirement === undefined || catalog.embedded) return true;
  const { table, anyIndexOf, sortsWholeUpTo, heldBeforeRead } = requirement;
  if (catalog.estimatedRows(table) <= sortsWholeUpTo) return true;
  const held = catalog.indexes(table);
  return held.size === 0 ? heldBeforeRead : anyIndexOf.some((name) => held.has(name));
}

/** The least a read not shown current may be behind, so that `Data-Staleness` never says 0 of such a read. */
const MIN_STALENESS_S = 0.001;

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
export class ReplicasBehindError extends Error {
  constructor(
    /** How far behind the least behind of them is; unknown when none of them answers. */
    readonly behindSeconds: number | undefined,
    readonly maxStalenessSeconds: number,
  ) {
    super('Every replica that holds what this request needs is too far behind, or not answering');
  }
}

/** The server a request reads from, and how far behind it is when it is a replica chosen past DB_REPLICA_MAX_LAG_S. */
interface Choice {
  server: DatabaseServer;
  behindSeconds?: number;
}

/** docs/API.md §19: what a read must reflect. Without a writer's position, every write committed before it came. */
export interface ReadConsistency {
  /** A position a writer handed its client (`Read-After-Gtid`), as sent. */
  writerPosition?: string;
}

/** How a read was served (docs/API.md §19), as `orders_listing_reads_total` counts them. */
const SERVED_BY = [
  'primary',
  'replica',
  'replica-after-wait',
  'writer-position',
  'primary-after-wait',
  'stale',
] as const;
export type ServedBy = (typeof SERVED_BY)[number];

/** A writer's position that is not one the servers write (another kind of server's, or no position at all). */
export class MalformedPositionError extends Error {
  constructor() {
    super('a position of another kind of database server than these');
  }
}

/** A writer's position the primary has not reached: no commit made it. */
export class UncommittedPositionError extends Error {
  constructor() {
    super('ahead of the primary: no commit has reached this position');
  }
}

/** A writer's position of a write the primary's history does not hold: lost with the server that took it. */
export class LostPositionError extends Error {
  constructor() {
    super('a write the current primary does not hold: it was lost when the primary changed');
  }
}

/** What a replica must have applied before it serves, and where that position came from. */
type Target =
  | { position: ReplicationPosition; fromWriter: boolean; unchecked?: false }
  /** A writer's position that could not be checked against the primary's history: no server is shown to hold it. */
  | { unchecked: true };

const UNCHECKED: Target = { unchecked: true };

/** The replica had not applied the target within DB_REPLICA_WAIT_MS: the primary serves instead. */
class NotCaughtUp extends Error {}

/** A driver failure that means "not now" becomes the 503 of docs/API.md §10; anything else stays what it is (a 500). */
async function answered<T>(reads: () => Promise<T>): Promise<T> {
  try {
    return await reads();
  } catch (error) {
    throw error instanceof DatabaseUnavailableError || !isDatabaseUnavailable(error)
      ? error
      : new DatabaseUnavailableError(error);
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
  private readonly positions: PrimaryPositions;
  /** Reads by how they were served since start, for the metrics. */
  readonly served: Record<ServedBy, number> = Object.fromEntries(SERVED_BY.map((by) => [by, 0])) as Record<
    ServedBy,
    number
  >;

  constructor(
    private readonly servers: DatabaseServers,
    private readonly deadlines: RequestDeadlines,
  ) {
    this.positions = new PrimaryPositions(() => servers.primary);
  }

  /**
   * Runs a request's statements on one connection of the server routing
   * picks; if that server fails (refused, reset, timed out), runs them once
   * more on another. A driver failure that means "not now" becomes the 503 of
   * docs/API.md §10; anything else stays what it is (a 500).
   */
  async withConnection<T>(
    work: (session: ReadSession) => Promise<T>,
    required: Requirement = undefined,
    consistency: ReadConsistency = {},
  ): Promise<T> {
    const first = this.pick(required);
    const deadline = this.deadlines.start();
    return answered(() => deadline.race(this.route(work, deadline, first, required, consistency)));
  }

  /**
   * docs/API.md §13: reads that must all come from one server, the one routing
   * picks now (an export's batches). Each `withConnection` is one batch: a
   * connection of that server and a deadline of its own. A server failing
   * fails the reads, since another server may hold other data, unless the
   * caller moves them (`moveAfter`) before it has sent any.
   */
  pinned(required: Requirement = undefined, consistency: ReadConsistency = {}): PinnedReads {
    let { server, behindSeconds: behind } = this.pick(required);
    // docs/API.md §19: an export is a long read, never moved onto the primary for freshness; its first read waits for
    // the replica up to the bound, and says otherwise how far behind its data may be.
    let started = false;
    const reads = {
      behindSeconds: behind,
      withConnection: async <T>(work: (session: ReadSession) => Promise<T>, cancelled?: AbortSignal): Promise<T> => {
        const isFirst = !started;
        started = true;
        const chosen = server;
        const target = isFirst ? await this.targetOf(chosen, consistency) : undefined;
        const deadline = this.deadlines.start();
        const batch = chosen.admission.withConnection(
          (runner) =>
            new ServerAttempt(runner, deadline, chosen, false, cancelled, behind).run(async (session) => {
              if (isFirst) reads.behindSeconds = await this.ensureCaughtUp(chosen, session, target, false);
              return work(session);
            }),
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
      moveAfter: (error: unknown): boolean => {
        if (!this.isServerFailure(error)) return false;
        const capable = this.capableOf(required);
        const second = capable.length > 0 ? this.pickAmong(capable, server) : server;
        if (second === server) return false;
        server.markFailed(error instanceof ServerNotAnsweringError ? error.why : reasonOf(error));
        [server, behind, started, reads.behindSeconds] = [second, undefined, false, undefined];
        return true;
      },
    };
    return reads;
  }

  private async route<T>(
    work: (session: ReadSession) => Promise<T>,
    deadline: RequestDeadline,
    { server: first, behindSeconds }: Choice,
    required: Requirement,
    consistency: ReadConsistency,
  ): Promise<T> {
    const { primary } = this.servers;
    // What the primary can serve is read current, from it if need be; what only replicas hold is read where it can.
    // Asked at each attempt: a retry after the primary failed serves where it can, saying how far behind.
    const primaryServes = () => holds(primary.catalog, required) && primary.health.answering;
    const target = this.targetOf(first, consistency);
    // Awaited by every attempt; observed here too, so that a refusal is never an unhandled rejection.
    target.catch(() => undefined);
    const attempt = async (server: DatabaseServer, mayGiveUp: boolean, behind?: number, asCurrent = true) => {
      const wanted = asCurrent ? await target : undefined;
      try {
        return await server.admission.withConnection(
          (runner) =>
            new ServerAttempt(runner, deadline, server, mayGiveUp, undefined, behind).run(async (session) => {
              session.behindSeconds = await this.ensureCaughtUp(server, session, wanted, primaryServes());
              return work(session);
            }),
          deadline,
        );
      } catch (error) {
        if (!(error instanceof NotCaughtUp)) throw error;
        try {
          const result = await primary.admission.withConnection(
            (runner) => new ServerAttempt(runner, deadline, primary, false).run(work),
            deadline,
          );
          this.served['primary-after-wait'] += 1;
          return result;
        } catch (failure) {
          // The primary failed where it stood in: its failure, not the replica's, which serves saying how far behind.
          if (deadline.remainingMs() <= 0 || !this.isServerFailure(failure)) throw failure;
          primary.markFailed(reasonOf(failure));
          return await attempt(server, false, behind, false);
        }
      }
    };
    // Giving up early only makes sense where another server could answer; the retry is the last word.
    const mayGiveUp = this.servers.all.some(
      (server) => server !== first && server.canRead() && holds(server.catalog, required),
    );
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
        first.markFailed(error instanceof ServerNotAnsweringError ? error.why : reasonOf(error));
      }
      if (this.servers.replicas.length === 0) throw error;
      const capable = this.capableOf(required);
      const second = capable.length > 0 ? this.pickAmong(capable, first) : first;
      // Nowhere else to go: for a server found not to hold what it was thought to, as if it had been known before.
      if (second === first) throw isMissingIndex(error) ? new NoCapableServerException() : error;
      return await attempt(second, false);
    }
  }

  /**
   * docs/API.md §19: the position a replica must have applied to serve a read: the writer's, checked against the
   * primary's history (§20), else the primary's, read after the request came. Undefined where nothing needs waiting
   * for (the primary itself, the embedded database) or where it cannot be known (the primary not answering): a
   * replica's answer then says how far behind it may be; so does any answer to a writer's position left unchecked.
   */
  private async targetOf(server: DatabaseServer, { writerPosition }: ReadConsistency): Promise<Target | undefined> {
    const { primary } = this.servers;
    if (writerPosition !== undefined) {
      const dialect = await this.dialect();
      // Not known (the primary has not answered yet): the read cannot be shown to hold the write.
      if (!dialect) return UNCHECKED;
      const position = dialect.parse(writerPosition);
      if (!position) throw new MalformedPositionError();
      // On a single server every read is current.
      if (this.servers.replicas.length === 0) return { position, fromWriter: true };
      // Checked against the primary's history by origin whichever server serves (docs/API.md §20); a primary not
      // taken as the primary, not answering, or whose history cannot be read cannot show the write: not current.
      if (!primary.health.answering) return UNCHECKED;
      const history = await this.positions.history().catch(() => undefined);
      if (!history) return UNCHECKED;
      const verdict = writeVerdict(history, position);
      if (verdict === 'ahead') throw new UncommittedPositionError();
      if (verdict === 'lost') throw new LostPositionError();
      return { position, fromWriter: true };
    }
    if (server.isPrimary || !primary.health.answering) return undefined;
    try {
      return { position: await this.positions.read(), fromWriter: false };
    } catch {
      // The primary's own failure is for its health check to find; this read cannot be shown current.
      return undefined;
    }
  }

  /** The servers' kind of positions, learned from the primary's first position read. */
  private async dialect(): Promise<GtidDialect | undefined> {
    if (!this.positions.dialect && this.servers.primary.health.answering) {
      await this.positions.read().catch(() => undefined);
    }
    return this.positions.dialect;
  }

  /**
   * On a replica, before the request's statements: whether it has applied the target, waiting on the request's own
   * connection up to DB_REPLICA_WAIT_MS when it is not known to. Answers at most how far behind the data may be when
   * the read is not shown current, else undefined; throws NotCaughtUp where the primary should serve instead.
   */
  private async ensureCaughtUp(
    server: DatabaseServer,
    session: ServerAttempt,
    target: Target | undefined,
    primaryServes: boolean,
  ): Promise<number | undefined> {
    if (server.isPrimary) {
      if (target?.unchecked) {
        this.served.stale += 1;
        return MIN_STALENESS_S;
      }
      this.served.primary += 1;
      return undefined;
    }
    const mayBeBehind = () => Math.max(server.behindSeconds() ?? 0, session.behindSeconds ?? 0, MIN_STALENESS_S);
    if (!target || target.unchecked) {
      this.served.stale += 1;
      return mayBeBehind();
    }
    const known = server.hasApplied(target.position);
    if (!known) {
      if (!(await session.waitFor(this.positions.dialect!, target.position, this.servers.replicaWaitMs))) {
        if (primaryServes) throw new NotCaughtUp();
        this.served.stale += 1;
        return mayBeBehind();
      }
      // Known from now on, so that the requests after it need no wait.
      server.recordApplied(target.position);
    }
    // A writer's position shows that write, not every write the primary had when the request came.
    if (target.fromWriter) {
      this.served['writer-position'] += 1;
      return mayBeBehind();
    }
    this.served[known ? 'replica' : 'replica-after-wait'] += 1;
    return undefined;
  }

  /**
   * The server a request starts on, among those that can serve it. None fresh enough: the least-behind replica that
   * can (docs/API.md §18). None that holds what it needs: refused before any statement.
   */
  private pick(required: Requirement): Choice {
    const capable = this.capableOf(required);
    return capable.length > 0 ? { server: this.pickAmong(capable) } : this.leastBehind(required);
  }

  /**
   * docs/API.md §18: every server that can serve the request is a replica behind by more than DB_REPLICA_MAX_LAG_S
   * (or stopped, or down). The query is not too broad, a server is behind: the least-behind one that answers serves,
   * within DB_REPLICA_MAX_STALENESS_S; past that, or with none answering, 503. Only where no server holds what the
   * request needs is it refused as too broad.
   */
  private leastBehind(required: Requirement): Choice {
    const holders = this.servers.replicas.filter((replica) => holds(replica.catalog, required));
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
      throw new ReplicasBehindError(least?.behindSeconds, replicaMaxStalenessSeconds);
    }
    return least;
  }

  /**
   * Which servers can serve the request: every one that holds what it needs, when the primary does (a failure
   * of the primary is then the truthful answer); otherwise only the healthy replicas that do, since a replica
   * that lags, or does not answer, cannot stand in for what the primary cannot serve.
   */
  private capableOf(required: Requirement): DatabaseServer[] {
    const { primary, replicas } = this.servers;
    if (holds(primary.catalog, required)) return this.servers.all.filter((server) => holds(server.catalog, required));
    return replicas.filter((replica) => replica.isHealthyReplica() && holds(replica.catalog, required));
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
    if (error instanceof DatabaseSaturatedError) return false;
    if (error instanceof DatabaseUnavailableError) return !error.timedOut;
    return isDatabaseUnavailable(error);
  }
}
