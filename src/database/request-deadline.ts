import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../common/time/clock';
import { DATABASE_CONFIG } from '../config/config.module';
import type { DatabaseConfig } from '../config/database.config';
import { EventLoopDelay } from '../common/time/event-loop-delay';
import { DatabaseSaturatedError, DatabaseUnavailableError } from './database-errors';
import type { ServerEvidence, StatementTimings } from './statement-timings';

/** What is known, at the moment a request runs out of time, of where its time went. */
export interface LatenessEvidence extends ServerEvidence {
  /** How late this process has lately been in noticing what was ready (its event loop's delay). */
  loopDelayMs: number;
}

/**
 * docs/API.md §10, who made a request late. The database, when it does not
 * answer (a statement has waited half the budget and nothing at all has come
 * back from that server meanwhile, though the process was free to notice)
 * or when it answers slowly itself (its latest statements took half the
 * budget beyond what the event loop's delay explains). Otherwise this
 * process: its statements come back promptly and the time went in waiting
 * for a turn or for the event loop. Only what the server did lately counts,
 * so an outage right after a slow spell, or a slow spell right after an
 * outage, is named for what it is now.
 */
export function databaseIsTheCause(budgetMs: number, evidence: LatenessEvidence): boolean {
  const half = budgetMs / 2;
  const { oldestWaitingMs, sinceLastAnswerMs, recentMs, loopDelayMs } = evidence;
  const notAnswering = oldestWaitingMs > half && sinceLastAnswerMs > half && loopDelayMs < half;
  const slowItself = recentMs - loopDelayMs > half;
  return notAnswering || slowItself;
}

/** A request that never reached a server: nothing says the database made it late. */
const NOTHING_SEEN: ServerEvidence = { oldestWaitingMs: 0, sinceLastAnswerMs: 0, recentMs: 0 };

/** Runs `then` once the event loop has handled the I/O that was ready when it was called. */
export function afterPendingIo(then: () => void): void {
  setImmediate(then);
}

/**
 * docs/API.md §10: the time one request may spend on the database, from the
 * moment it asks for a connection. The admission queue, the router's
 * attempts and each statement ask it how much is left, and it alone decides
 * what a request that runs out of time is answered: the database is
 * unavailable (it did not answer, or it is what makes everyone wait) or the
 * service is busy (more requests than the pool can answer in time).
 *
 * The driver's own per-statement timeout stays as a backstop set to the same
 * budget: it never fires first, but it frees the connection of a statement
 * the database never answers, which the race below cannot do.
 */
export class RequestDeadline {
  private readonly startedAt: number;
  /** The statements of the server the request is on now, or waits for. */
  private server?: StatementTimings;

  constructor(
    readonly budgetMs: number,
    private readonly clock: Clock,
    private readonly loopDelay?: EventLoopDelay,
  ) {
    this.startedAt = clock.now();
  }

  remainingMs(): number {
    return this.budgetMs - (this.clock.now() - this.startedAt);
  }

  /** The request now waits for, or runs on, this server: a late answer is judged by its statements. */
  attempting(server: StatementTimings): void {
    this.server = server;
  }

  /** Before each statement: a request already answered 503 issues no further statement. */
  check(): void {
    if (this.remainingMs() < 0) throw this.expired();
  }

  /**
   * The request's work, answered 503 the moment the budget is spent; one
   * timer, cleared with the answer. Who is to blame is decided only after
   * the event loop has read what arrived meanwhile (`afterPendingIo`): timers
   * run before a turn's I/O, so after a stall of the process the deadline
   * fires while the server's answers still wait unread in their sockets.
   */
  race<T>(work: Promise<T>): Promise<T> {
    if (!Number.isFinite(this.budgetMs)) return work;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      const firesAt = this.clock.now() + Math.max(0, this.remainingMs());
      timer = setTimeout(() => {
        const lateMs = this.clock.now() - firesAt;
        afterPendingIo(() => reject(this.expired(lateMs)));
      }, firesAt - this.clock.now());
    });
    return Promise.race([work, expired]).finally(() => clearTimeout(timer));
  }

  /**
   * A request that cannot get a connection in time: the database is
   * unavailable, or the service is busy. `lateMs`: how late the process was
   * in noticing that the time had come, when a timer decided it.
   */
  refusal(lateMs = 0): DatabaseUnavailableError | DatabaseSaturatedError {
    return this.blamesDatabase(lateMs)
      ? new DatabaseUnavailableError(new Error('The requests ahead are kept waiting by the database'))
      : new DatabaseSaturatedError();
  }

  /** A request whose budget is spent while its statements run. */
  private expired(lateMs = 0): DatabaseUnavailableError | DatabaseSaturatedError {
    return this.blamesDatabase(lateMs)
      ? new DatabaseUnavailableError(new Error(`The database did not answer within ${this.budgetMs} ms`), true)
      : new DatabaseSaturatedError();
  }

  private blamesDatabase(lateMs: number): boolean {
    const server = this.server?.evidence() ?? NOTHING_SEEN;
    const loopDelayMs = Math.max(lateMs, this.loopDelay?.recentMs() ?? 0);
    return databaseIsTheCause(this.budgetMs, { ...server, loopDelayMs });
  }
}

/** Starts each request's deadline on the injected clock, with the budget the configuration gives. */
@Injectable()
export class RequestDeadlines {
  private readonly budgetMs: number;

  constructor(
    @Inject(DATABASE_CONFIG) config: DatabaseConfig,
    private readonly clock: Clock,
    private readonly loopDelay: EventLoopDelay,
  ) {
    // The embedded database runs in-process and cannot hang on a network.
    this.budgetMs = config.type === 'mysql' ? config.queryTimeoutMs : Number.POSITIVE_INFINITY;
  }

  start(): RequestDeadline {
    return new RequestDeadline(this.budgetMs, this.clock, this.loopDelay);
  }
}
