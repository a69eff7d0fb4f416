import { Inject, Injectable, Optional } from '@nestjs/common';
import { asUnavailable, isMissingIndex, isServerFailure, reasonOf } from './database-errors';
import type { DatabaseServer } from './database-server';
import { DatabaseServers } from './database-servers';
import { Freshness, type Target } from './freshness';
import type { ConnectionLease } from './database-admission';
import {
  ReadSession,
  ServerNotAnsweringError,
  STATEMENT_OBSERVER,
  type SessionOptions,
  type StatementObserver,
} from './read-session';
import { RequestDeadlines, type RequestDeadline } from './request-deadline';
import { NoCapableServerException, ServerChoice, holds, type ServerRequirement } from './server-choice';

/** What a unit of work needs of its server: what it must hold, and a writer's position it must reflect. */
export interface ReadRequirements {
  required?: ServerRequirement;
  writerPosition?: string;
}

/** A unit of work: its reads on the one connection it is given, retried whole on another server if its own fails. */
export type UnitOfWork<T> = (session: ReadSession) => Promise<T>;

/** `wait` for the target (the primary stands in for a late replica), `pinned` without that, `stale`, or `none`. */
type Check = 'wait' | 'pinned' | 'stale' | 'none';

/** A batch of pinned reads: its server, whether the server was checked by an earlier batch, and the export's signal. */
interface PinnedBatch {
  server: DatabaseServer;
  behindSeconds?: number;
  checked: boolean;
  cancelled?: AbortSignal;
}

/** One try of the unit on one server; `standingInFor`: the primary serves for a replica that had not caught up. */
interface Attempt {
  server: DatabaseServer;
  check: Check;
  options: AttemptOptions;
  retried: boolean;
  standingInFor?: { replica: DatabaseServer; behindSeconds?: number };
}

/** What every attempt of a unit shares: its deadline, the position to reflect, and what its server must hold. */
interface Unit {
  deadline: RequestDeadline;
  target: Promise<Target | undefined>;
  required?: ServerRequirement;
  pinned: boolean;
}

/** An attempt's connection, checked: its session, or none where the primary should serve instead. */
interface Opened {
  session?: ReadSession;
  lease: ConnectionLease;
}

/** Reads kept on one server, each with its own connection and deadline (an export's batches). */
export interface PinnedReads {
  batch<T>(work: UnitOfWork<T>, cancelled?: AbortSignal): Promise<T>;
  /** After a failure of the server itself, before anything read was sent: the reads start over on another server. */
  moveAfter(error: unknown): boolean;
  /** The server's GTID position now, as an export's access record keeps it; none on the embedded database. */
  position(): Promise<string | undefined>;
}

/** MariaDB's position, or, where that variable is unknown, MySQL's. */
const POSITION_STATEMENTS = [
  'SELECT @@global.gtid_current_pos AS position',
  'SELECT @@global.gtid_executed AS position',
];

type AttemptOptions = Omit<SessionOptions, 'observer'> & { paced?: boolean };

const failureReason = (error: unknown): string =>
  error instanceof ServerNotAnsweringError ? error.why : reasonOf(error);

/** docs/API.md §11, a unit of work: a server picked, admitted, checked for freshness, one connection, one retry elsewhere. */
@Injectable()
export class ReadRouter {
  constructor(
    private readonly servers: DatabaseServers,
    private readonly deadlines: RequestDeadlines,
    private readonly choice: ServerChoice,
    private readonly freshness: Freshness,
    @Optional() @Inject(STATEMENT_OBSERVER) private readonly observer?: StatementObserver,
  ) {}

  /** Runs `work` on a connection of the server routing picks, and once more on another if that server fails. Its
   * attempts are one loop, so that the work is called from here: a page's statements are a few frames from its
   * controller. `batch`: one of pinned reads, on their server and never retried. */
  async unitOfWork<T>(
    work: UnitOfWork<T>,
    { required, writerPosition }: ReadRequirements = {},
    batch?: PinnedBatch,
  ): Promise<T> {
    const deadline = this.deadlines.start();
    const first = batch ?? this.choice.first(required);
    const check: Check = !batch ? 'wait' : batch.checked ? 'none' : 'pinned';
    const target =
      check === 'none' ? Promise.resolve(undefined) : this.freshness.targetOf(first.server, writerPosition);
    // Awaited by every attempt; observed here too, so that a refusal is never an unhandled rejection.
    target.catch(() => undefined);
    const unit: Unit = { deadline, target, required, pinned: batch !== undefined };
    // A batch is not a request: how long it holds its connection says nothing of when the next one is answered.
    const options: AttemptOptions = batch
      ? { cancelled: batch.cancelled, behindSeconds: batch.behindSeconds, paced: false }
      : { mayGiveUp: this.choice.hasOtherThan(first.server, required), behindSeconds: first.behindSeconds };
    let attempt: Attempt = { server: first.server, check, options, retried: false };
    for (;;) {
      const opening = this.open(attempt, unit);
      let done: Promise<T> | undefined;
      try {
        const opened = await deadline.race(opening);
        if (!opened.session) {
          attempt = this.primaryStandsIn(attempt);
          continue;
        }
        const { session } = opened;
        done = work(session).finally(() => this.close(opened));
        const result = await deadline.race(done);
        if (attempt.standingInFor) this.freshness.current('primary-after-wait');
        return result;
      } catch (error) {
        // What is still running gives its connection back when it ends; a batch's failure is told only then.
        const settled = done ?? opening.then((late) => this.close(late));
        if (batch) await settled.catch(() => undefined);
        else settled.catch(() => undefined);
        attempt = this.nextAfter(error, attempt, unit);
      }
    }
  }

  /** Reads that must all come from the server routing picks now; each call is one batch with its own deadline. */
  pinned(requirements: ReadRequirements = {}): PinnedReads {
    let { server, behindSeconds } = this.choice.first(requirements.required);
    let checked = false;
    return {
      batch: <T>(work: UnitOfWork<T>, cancelled?: AbortSignal) => {
        const batch: PinnedBatch = { server, behindSeconds, checked, cancelled };
        checked = true;
        return this.unitOfWork(work, requirements, batch);
      },
      moveAfter: (error: unknown): boolean => {
        if (!isServerFailure(error)) return false;
        const second = this.choice.second(requirements.required, server);
        if (second === server) return false;
        server.markFailed(failureReason(error));
        [server, behindSeconds, checked] = [second, undefined, false];
        return true;
      },
      position: async () => {
        if (!server.isMysql) return undefined;
        const [mariadb, mysql] = POSITION_STATEMENTS;
        return server
          .readVariable(mariadb)
          .catch(() => server.readVariable(mysql))
          .catch(() => undefined);
      },
    };
  }

  /** The attempt's server admits a connection, which is checked for freshness; none if the primary should serve. */
  private async open({ server, check, options }: Attempt, unit: Unit): Promise<Opened> {
    const target = check === 'wait' || check === 'pinned' ? await unit.target : undefined;
    const lease = await server.admission.acquire(unit.deadline, { paced: options.paced });
    const session = new ReadSession(lease.runner, unit.deadline, server, { ...options, observer: this.observer });
    const opened = { session, lease };
    if (check === 'none') return opened;
    try {
      const primaryServes = check === 'wait' && this.primaryServes(unit.required);
      const verdict = await this.freshness.verdict(server, session, target, primaryServes);
      if (verdict !== 'primary-serves') {
        session.behindSeconds = verdict;
        return opened;
      }
    } catch (error) {
      await this.close(opened);
      throw error;
    }
    await this.close(opened);
    return { lease };
  }

  private async close({ session, lease }: Opened): Promise<void> {
    try {
      await session?.end();
    } finally {
      await lease.release();
    }
  }

  /** The replica had not caught up in time: the primary serves; failing, the replica does, saying how far behind. */
  private primaryStandsIn({ server, options, retried }: Attempt): Attempt {
    const standingInFor = { replica: server, behindSeconds: options.behindSeconds };
    return { server: this.servers.primary, check: 'none', options: {}, retried, standingInFor };
  }

  /** After a failed attempt: the one to make next, or the failure to answer with. */
  private nextAfter(error: unknown, attempt: Attempt, { deadline, required, pinned }: Unit): Attempt {
    // Out of time: the deadline has answered already, and the driver's own timeout tells of a slow shape.
    if (pinned || deadline.remainingMs() <= 0) throw asUnavailable(error);
    const { server, standingInFor, retried } = attempt;
    if (standingInFor) {
      if (!isServerFailure(error)) throw asUnavailable(error);
      server.markFailed(reasonOf(error));
      const options = { behindSeconds: standingInFor.behindSeconds };
      return { server: standingInFor.replica, check: 'stale', options, retried };
    }
    if (retried) throw asUnavailable(error);
    if (isMissingIndex(error)) {
      // Its indexes changed since they were read: forgotten until the next check reads them.
      server.forgetCatalog();
    } else {
      if (!isServerFailure(error)) throw asUnavailable(error);
      server.markFailed(failureReason(error));
    }
    if (this.servers.replicas.length === 0) throw asUnavailable(error);
    const second = this.choice.second(required, server);
    if (second === server) throw asUnavailable(isMissingIndex(error) ? new NoCapableServerException() : error);
    return { server: second, check: 'wait', options: {}, retried: true };
  }

  /** What the primary holds is read current, from it if need be; asked at each attempt, as the primary may fail. */
  private primaryServes(required: ServerRequirement | undefined): boolean {
    const { primary } = this.servers;
    return holds(primary.catalog, required) && primary.health.answering;
  }
}
