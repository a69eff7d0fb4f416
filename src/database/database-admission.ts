import { performance } from 'node:perf_hooks';
import type { DataSource, QueryRunner } from 'typeorm';
import type { DatabaseConfig } from '../config/database.config';
import { DatabaseSaturatedException, DatabaseUnavailableException } from './database-errors';

/** How much a new measurement moves the running estimate of how long a request holds its connection. */
const SMOOTHING = 0.2;
/**
 * The backstop to the deadline: however fast the recent pace, no more
 * requests than this wait at once, so that what they hold stays bounded.
 */
export const MAX_WAITING = 512;

interface Waiter {
  grant: () => void;
  refuse: () => void;
  timer: NodeJS.Timeout;
}

/**
 * CONTRACT §10, busy is not down: every request runs all its statements on one
 * connection of the pool, and at most as many requests as the pool has
 * connections hold one at a time. The others wait their turn, first come first
 * served, while they can still be answered within DB_QUERY_TIMEOUT_MS. A
 * request is refused (503, the service is busy) only when it could not be: it
 * has waited as long as it could, or the wait list ahead of it is longer than
 * the deadline can drain at the recently measured pace. What waiting requests
 * hold is a timer and a place in the list; no statement of theirs is started.
 * One per database server, each over that server's pool.
 */
export class DatabaseAdmission {
  private readonly permits: number;
  private readonly deadlineMs: number;
  private inUse = 0;
  private readonly waiting: Waiter[] = [];
  /** Running estimate of how long a request holds its connection, in ms. */
  private holdMs = 0;
  /** When each request now holding a connection got it. */
  private readonly holders = new Set<{ since: number }>();

  constructor(
    private readonly dataSource: DataSource,
    config: DatabaseConfig,
  ) {
    // The embedded database runs in-process, one statement at a time: nothing to queue for.
    this.permits = config.type === 'mysql' ? config.poolSize : Number.POSITIVE_INFINITY;
    this.deadlineMs = config.type === 'mysql' ? config.queryTimeoutMs : Number.POSITIVE_INFINITY;
  }

  /** Requests waiting for a connection now. */
  queuedRequests(): number {
    return this.waiting.length;
  }

  /**
   * Runs `work` on a connection of its own, once one is free, and releases it
   * afterwards. `withinDeadline` throws the deadline's 503 once the request's
   * time is up, so that work issues no further statement for a request that
   * has been answered already. The deadline counts from `arrived`, so that a
   * request retried on another server keeps the time it had.
   */
  async withConnection<T>(
    work: (runner: QueryRunner, withinDeadline: () => void) => Promise<T>,
    arrived = performance.now(),
  ): Promise<T> {
    await this.admit(arrived);
    const started = performance.now();
    const holder = { since: started };
    this.holders.add(holder);
    const withinDeadline = (): void => {
      if (performance.now() - arrived > this.deadlineMs) {
        throw new DatabaseUnavailableException(new Error(`The deadline of ${this.deadlineMs} ms passed`), 'timeout');
      }
    };
    const runner = this.dataSource.createQueryRunner();
    try {
      return await work(runner, withinDeadline);
    } finally {
      try {
        await runner.release();
      } finally {
        // Even if giving the connection back failed, the turn passes on: a lost turn would never come back.
        this.holders.delete(holder);
        const heldMs = performance.now() - started;
        this.holdMs = this.holdMs === 0 ? heldMs : this.holdMs + SMOOTHING * (heldMs - this.holdMs);
        this.release();
      }
    }
  }

  private admit(arrived: number): Promise<void> {
    if (this.inUse < this.permits) {
      this.inUse += 1;
      return Promise.resolve();
    }
    // When this request would be answered at the pace of the last ones: its wait for a turn, plus its own work.
    const rounds = Math.floor(this.waiting.length / this.permits) + 1;
    const remainingMs = this.deadlineMs - (performance.now() - arrived);
    const answerableWithinMs = remainingMs - this.holdMs;
    if (this.waiting.length >= MAX_WAITING || rounds * this.holdMs > remainingMs) {
      return Promise.reject(this.refusal());
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        refuse: () => reject(this.refusal()),
        // Past this, its turn would come too late for its own work to finish within the deadline.
        timer: setTimeout(
          () => {
            this.waiting.splice(this.waiting.indexOf(waiter), 1);
            waiter.refuse();
          },
          Math.max(0, answerableWithinMs),
        ),
      };
      this.waiting.push(waiter);
    });
  }

  /**
   * Why a request cannot be answered in time: the service is busy, unless the
   * database is what is slow (requests have lately held their connections for
   * half the deadline, or one ahead has held it that long now), in which case
   * the answer says the database is the cause.
   */
  private refusal(): Error {
    const now = performance.now();
    const slow = this.deadlineMs / 2;
    const stalled = this.holdMs > slow || [...this.holders].some((holder) => now - holder.since > slow);
    return stalled
      ? new DatabaseUnavailableException(new Error('The requests ahead are stuck on the database'))
      : new DatabaseSaturatedException();
  }

  private release(): void {
    const next = this.waiting.shift();
    // The connection passes straight to the next in line; the count in use stays the same.
    if (next) next.grant();
    else this.inUse -= 1;
  }
}
