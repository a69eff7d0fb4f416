import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../common/time/clock';
import { DATABASE_CONFIG } from '../config/config.module';
import type { DatabaseConfig } from '../config/database.config';
import { DatabaseSaturatedException, DatabaseUnavailableException } from './database-errors';

/** What the admission queue saw of the requests holding connections when one could not get its turn in time. */
export interface HoldEvidence {
  /** The running estimate of how long a request holds its connection. */
  typicalHoldMs: number;
  /** How long the oldest request now holding a connection has held it. */
  longestHoldMs: number;
}

/**
 * CONTRACT §10: the time one request may spend on the database, from the
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

  constructor(
    readonly budgetMs: number,
    private readonly clock: Clock,
  ) {
    this.startedAt = clock.now();
  }

  remainingMs(): number {
    return this.budgetMs - (this.clock.now() - this.startedAt);
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
      timer = setTimeout(() => reject(this.expired()), Math.max(0, this.remainingMs()));
    });
    return Promise.race([work, expired]).finally(() => clearTimeout(timer));
  }

  /**
   * A request that cannot get a connection in time. The database is named as
   * the cause when it is what is slow: requests have lately held their
   * connections for half the budget, or one ahead has held it that long now.
   * Otherwise the database is fine and the service is busy.
   */
  refusal({ typicalHoldMs, longestHoldMs }: HoldEvidence): DatabaseUnavailableException | DatabaseSaturatedException {
    const slow = this.budgetMs / 2;
    return typicalHoldMs > slow || longestHoldMs > slow
      ? new DatabaseUnavailableException(new Error('The requests ahead are stuck on the database'))
      : new DatabaseSaturatedException();
  }

  private expired(): DatabaseUnavailableException {
    return new DatabaseUnavailableException(
      new Error(`The database did not answer within ${this.budgetMs} ms`),
      'databaseTimeout',
    );
  }
}

/** Starts each request's deadline on the injected clock, with the budget the configuration gives. */
@Injectable()
export class RequestDeadlines {
  private readonly budgetMs: number;

  constructor(
    @Inject(DATABASE_CONFIG) config: DatabaseConfig,
    private readonly clock: Clock,
  ) {
    // The embedded database runs in-process and cannot hang on a network.
    this.budgetMs = config.type === 'mysql' ? config.queryTimeoutMs : Number.POSITIVE_INFINITY;
  }

  start(): RequestDeadline {
    return new RequestDeadline(this.budgetMs, this.clock);
  }
}
