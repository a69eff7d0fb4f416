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

/** The database made a request late when it did not answer, or answered slowly itself. */
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

/** docs/API.md §10: the time one request may spend on the database, from the moment it asks for a connection. */
export class RequestDeadline {
  private readonly startedAt: number;
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

  /** The request's work, answered 503 the moment the budget is spent; one timer, cleared with the answer. */
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

  /** A request that cannot get a connection in time: the database is unavailable, or the service is busy. */
  refusal(lateMs = 0): DatabaseUnavailableError | DatabaseSaturatedError {
    return this.blamesDatabase(lateMs)
      ? new DatabaseUnavailableError(new Error('The requests ahead are kept waiting by the database'))
      : new DatabaseSaturatedError();
  }

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
