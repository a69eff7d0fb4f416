import { Injectable } from '@nestjs/common';
import { Clock } from '../common/time/clock';
import { asUnavailable, isMissingIndex, isServerFailure, reasonOf } from './database-errors';
import type { DatabaseServer } from './database-server';
import { DatabaseServers } from './database-servers';
import { Freshness, type Target, type Verdict } from './freshness';
import { ReadSession, ServerNotAnsweringError, type SessionOptions, type StatementObserver } from './read-session';
import { RequestDeadlines, type RequestDeadline } from './request-deadline';
import { NoCapableServerException, ServerChoice, holds, type ServerRequirement } from './server-choice';

/** What a unit of work needs of its server: what it must hold, and a writer's position it must reflect. */
export interface ReadRequirements {
  required?: ServerRequirement;
  writerPosition?: string;
}

interface UnitOfWork<T> {
  work: (session: ReadSession) => Promise<T>;
  required?: ServerRequirement;
  deadline: RequestDeadline;
  target: Promise<Target | undefined>;
}

/** `wait` for the target (the primary stands in for a late replica), `pinned` without that, `stale`, or `none`. */
type Check = 'wait' | 'pinned' | 'stale' | 'none';

/** Reads kept on one server, each with its own connection and deadline (an export's batches). */
export interface PinnedReads {
  withConnection<T>(work: (session: ReadSession) => Promise<T>, cancelled?: AbortSignal): Promise<T>;
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
  private readonly choice: ServerChoice;
  private readonly freshness: Freshness;
  private observer?: StatementObserver;

  constructor(
    private readonly servers: DatabaseServers,
    private readonly deadlines: RequestDeadlines,
    clock: Clock,
  ) {
    this.choice = new ServerChoice(servers);
    this.freshness = new Freshness(servers, clock);
  }

  get served(): Freshness['served'] {
    return this.freshness.served;
  }

  /** Told of every listing statement (metrics and traces live above this layer). */
  observeStatements(observer: StatementObserver): void {
    this.observer = observer;
  }

  async withConnection<T>(
    work: (session: ReadSession) => Promise<T>,
    { required, writerPosition }: ReadRequirements = {},
  ): Promise<T> {
    const first = this.choice.first(required);
    const deadline = this.deadlines.start();
    const target = this.freshness.targetOf(first.server, writerPosition);
    // Awaited by every attempt; observed here too, so that a refusal is never an unhandled rejection.
    target.catch(() => undefined);
    const unit: UnitOfWork<T> = { work, deadline, target, required };
    const mayGiveUp = this.choice.hasOtherThan(first.server, required);
    try {
      return await deadline.race(
        this.firstThenSecond(unit, first.server, { mayGiveUp, behindSeconds: first.behindSeconds }),
      );
    } catch (error) {
      throw asUnavailable(error);
    }
  }

  /** Reads that must all come from the server routing picks now; each call is one batch with its own deadline. */
  pinned({ required, writerPosition }: ReadRequirements = {}): PinnedReads {
    let { server, behindSeconds } = this.choice.first(required);
    let started = false;
    return {
      withConnection: async <T>(work: (session: ReadSession) => Promise<T>, cancelled?: AbortSignal) => {
        const check: Check = started ? 'none' : 'pinned';
        started = true;
        const deadline = this.deadlines.start();
        const target =
          check === 'pinned' ? this.freshness.targetOf(server, writerPosition) : Promise.resolve(undefined);
        const unit: UnitOfWork<T> = { work, deadline, target, required };
        // A batch is not a request: how long it holds its connection says nothing of when the next one is answered.
        const batch = this.attempt(unit, server, { cancelled, behindSeconds, paced: false }, check);
        try {
          return await deadline.race(batch);
        } catch (error) {
          // Told once its connection is back: an export that fails holds nothing when its answer ends.
          await batch.catch(() => undefined);
          throw asUnavailable(error);
        }
      },
      moveAfter: (error: unknown): boolean => {
        if (!isServerFailure(error)) return false;
        const second = this.choice.second(required, server);
        if (second === server) return false;
        server.markFailed(failureReason(error));
        [server, behindSeconds, started] = [second, undefined, false];
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

  private async firstThenSecond<T>(unit: UnitOfWork<T>, first: DatabaseServer, options: AttemptOptions): Promise<T> {
    try {
      return await this.attempt(unit, first, options, 'wait');
    } catch (error) {
      // Out of time: the deadline has answered already, and the driver's own timeout tells of a slow shape.
      if (unit.deadline.remainingMs() <= 0) throw error;
      if (isMissingIndex(error)) {
        // Its indexes changed since they were read: forgotten until the next check reads them.
        first.forgetCatalog();
      } else {
        if (!isServerFailure(error)) throw error;
        first.markFailed(failureReason(error));
      }
      if (this.servers.replicas.length === 0) throw error;
      const second = this.choice.second(unit.required, first);
      if (second === first) throw isMissingIndex(error) ? new NoCapableServerException() : error;
      return await this.attempt(unit, second, {}, 'wait');
    }
  }

  /** One attempt on one server: admitted, checked for freshness, then the work, on one connection. */
  private async attempt<T>(
    unit: UnitOfWork<T>,
    server: DatabaseServer,
    options: AttemptOptions,
    check: Check,
  ): Promise<T> {
    const target = check === 'wait' || check === 'pinned' ? await unit.target : undefined;
    const lease = await server.admission.acquire(unit.deadline, { paced: options.paced });
    const session = new ReadSession(lease.runner, unit.deadline, server, { ...options, observer: this.observer });
    let verdict: Verdict;
    try {
      if (check !== 'none') {
        verdict = await this.freshness.verdict(
          server,
          session,
          target,
          check === 'wait' && this.primaryServes(unit.required),
        );
      }
      if (verdict !== 'primary-serves') {
        if (check !== 'none') session.behindSeconds = verdict;
        return await unit.work(session);
      }
    } finally {
      await session.end();
      await lease.release();
    }
    return await this.primaryStandsIn(unit, server, options);
  }

  /** The replica had not caught up in time: the primary serves; failing, the replica does, saying how far behind. */
  private async primaryStandsIn<T>(unit: UnitOfWork<T>, replica: DatabaseServer, options: AttemptOptions): Promise<T> {
    const { primary } = this.servers;
    try {
      const result = await this.attempt(unit, primary, {}, 'none');
      this.freshness.current('primary-after-wait');
      return result;
    } catch (failure) {
      if (unit.deadline.remainingMs() <= 0 || !isServerFailure(failure)) throw failure;
      primary.markFailed(reasonOf(failure));
      return await this.attempt(unit, replica, { behindSeconds: options.behindSeconds }, 'stale');
    }
  }

  /** What the primary holds is read current, from it if need be; asked at each attempt, as the primary may fail. */
  private primaryServes(required: ServerRequirement | undefined): boolean {
    const { primary } = this.servers;
    return holds(primary.catalog, required) && primary.health.answering;
  }
}
