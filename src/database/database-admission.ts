import type { DataSource, QueryRunner } from 'typeorm';
import type { Clock } from '../common/time/clock';
import { afterPendingIo, type RequestDeadline } from './request-deadline';
import type { StatementTimings } from './statement-timings';

/** How much a new measurement moves the running estimate of how long a request holds its connection. */
const SMOOTHING = 0.2;
/** The backstop to the deadline: no more requests than this wait at once, so that what they hold stays bounded. */
const MAX_WAITING = 512;

interface Waiter {
  grant: () => void;
  timer?: NodeJS.Timeout;
}

/** mysql2's pool keeps its connections in queues of its own; they have no public accessor. */
interface PoolConnections {
  _allConnections: { toArray(): PooledConnection[] };
  _freeConnections: { toArray(): PooledConnection[] };
}
interface PooledConnection {
  destroy(): void;
}

export interface ConnectionLease {
  runner: QueryRunner;
  release(): Promise<void>;
}

/** Busy is not down: a request waits for a connection while its deadline allows, refused only when it could not. */
export class DatabaseAdmission {
  private inUse = 0;
  /** Connections to a server no longer behind this address: closed instead of going back to the pool. */
  private readonly retired = new WeakSet<PooledConnection>();
  private readonly waiting: Waiter[] = [];
  /** Running estimate of how long a request holds its connection, in ms. */
  private holdMs = 0;

  constructor(
    private readonly dataSource: DataSource,
    /** Connections of the pool; the embedded database runs one statement at a time in-process and never queues. */
    private readonly permits: number,
    private readonly clock: Clock,
    /** The statements of the server this pool connects to. */
    private readonly timings: StatementTimings,
  ) {}

  /** The server behind this address changed (a moving address moved): every connection reaches the former one. */
  retireConnections(): void {
    const pool = (this.dataSource.driver as unknown as { pool?: PoolConnections }).pool;
    if (!pool) return;
    for (const connection of pool._allConnections.toArray()) this.retired.add(connection);
    for (const connection of pool._freeConnections.toArray()) connection.destroy();
  }

  queuedRequests(): number {
    return this.waiting.length;
  }

  /** Runs `work` on a connection of this pool once admitted, and gives the connection back however it ends. */
  async runAdmitted<T>(
    work: (runner: QueryRunner) => Promise<T>,
    deadline: RequestDeadline,
    options: { paced?: boolean } = {},
  ): Promise<T> {
    const lease = await this.acquire(deadline, options);
    try {
      return await work(lease.runner);
    } finally {
      await lease.release();
    }
  }

  /** A connection of its own once one is free in time, to be released once. */
  async acquire(deadline: RequestDeadline, { paced = true }: { paced?: boolean } = {}): Promise<ConnectionLease> {
    deadline.attempting(this.timings);
    await this.admit(deadline);
    const started = this.clock.now();
    const runner = this.dataSource.createQueryRunner();
    return {
      runner,
      release: async () => {
        try {
          const { databaseConnection } = runner as unknown as { databaseConnection?: PooledConnection };
          if (databaseConnection && this.retired.has(databaseConnection)) databaseConnection.destroy();
          await runner.release();
        } finally {
          // Even if giving the connection back failed, the turn passes on: a lost turn would never come back.
          if (paced) {
            const heldMs = this.clock.now() - started;
            this.holdMs = this.holdMs === 0 ? heldMs : this.holdMs + SMOOTHING * (heldMs - this.holdMs);
          }
          this.release();
        }
      },
    };
  }

  private admit(deadline: RequestDeadline): Promise<void> {
    if (this.inUse < this.permits) {
      this.inUse += 1;
      return Promise.resolve();
    }
    // When this request would be answered at the pace of the last ones: its wait for a turn, plus its own work.
    const rounds = Math.floor(this.waiting.length / this.permits) + 1;
    const remainingMs = deadline.remainingMs();
    if (this.waiting.length >= MAX_WAITING || rounds * this.holdMs > remainingMs) {
      return Promise.reject(deadline.refusal());
    }
    const waitMs = Math.max(0, remainingMs - this.holdMs);
    const refuseAt = this.clock.now() + waitMs;
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        // Past this, its turn would come too late for its own work to finish within the deadline.
        timer: Number.isFinite(waitMs)
          ? setTimeout(() => {
              this.waiting.splice(this.waiting.indexOf(waiter), 1);
              const lateMs = this.clock.now() - refuseAt;
              afterPendingIo(() => reject(deadline.refusal(lateMs)));
            }, waitMs)
          : undefined,
      };
      this.waiting.push(waiter);
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    // The connection passes straight to the next in line; the count in use stays the same.
    if (next) next.grant();
    else this.inUse -= 1;
  }
}
