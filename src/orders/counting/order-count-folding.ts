import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Database as SqljsDatabase } from 'sql.js';
import { DataSource, type QueryRunner } from 'typeorm';
import type { SqljsDriver } from 'typeorm/driver/sqljs/SqljsDriver';
import { Clock } from '../../common/time/clock';
import { DatabaseServers } from '../../database/database-servers';
import { RequestDeadline } from '../../database/request-deadline';
import { Metrics } from '../../observability/metrics';
import {
  addedAndWidened,
  BOUND_COLUMNS,
  COUNT_CHANGES_TABLE,
  COUNT_MOVES_TABLE,
  DAILY_COUNTS_TABLE,
  EMPTY_PENDING,
  foldEverything,
  PENDING_ROWS,
} from './daily-counts';

/** How often an instance tries to fold. Reads scan what is not folded yet, so this bounds their extra work. */
export const FOLD_INTERVAL_MS = 1_000;
/** Changes moved per transaction: small enough to keep each fold short, large enough to outrun a ticket sale. */
const FOLD_BATCH = 5_000;
/** How often a fold starts from the first change, to fold any change that committed behind the last one folded. */
export const FOLD_SWEEP_INTERVAL_MS = 60_000;
/** Every instance may fold; a MySQL named lock makes them take turns, so that one fold runs at a time. */
const FOLD_LOCK = 'orders.fold_count_changes';

/** What one counting row adds to a day's total of a status, and the order whose id and concert widen its bounds. */
interface Delta {
  day: string;
  status: string;
  delta: number;
  order?: { id: number; concertId: number };
}

/** A (day, status)'s sum of deltas, and the bounds of the orders they bring, as a fold writes them. */
interface Total {
  day: string;
  status: string;
  delta: number;
  bounds?: [firstId: number, lastId: number, lowestConcertId: number, highestConcertId: number];
}

const orderOf = (row: Record<string, unknown>): Delta['order'] =>
  row.orderId == null ? undefined : { id: Number(row.orderId), concertId: Number(row.concertId) };

/** A table the triggers append counting rows to, and what each of its rows adds to the totals. */
interface CountSource {
  table: string;
  columns: string;
  deltas: (row: Record<string, unknown>) => Delta[];
}

const DAY_COLUMN = "DATE_FORMAT(day, '%Y-%m-%d') AS day";

/** The two tables the triggers append to (migrations CountChangesOffTheWritePath, OneCountRowPerStatusChange). */
const SOURCES: CountSource[] = [
  {
    table: COUNT_CHANGES_TABLE,
    columns: `${DAY_COLUMN}, status, delta, order_id AS orderId, concert_id AS concertId`,
    deltas: (row) => [
      { day: String(row.day), status: String(row.status), delta: Number(row.delta), order: orderOf(row) },
    ],
  },
  {
    table: COUNT_MOVES_TABLE,
    columns: `${DAY_COLUMN}, from_status AS fromStatus, to_status AS toStatus, order_id AS orderId, concert_id AS concertId`,
    deltas: (row) => [
      { day: String(row.day), status: String(row.fromStatus), delta: -1 },
      { day: String(row.day), status: String(row.toStatus), delta: 1, order: orderOf(row) },
    ],
  },
];

/** Folds the rows the triggers append into the per-day totals, in the background. */
@Injectable()
export class OrderCountFolding implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OrderCountFolding.name);
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  /** Whether the last fold failed, so that a failing spell is logged once, not once a second. */
  private failing = false;
  private readonly foldedThrough = new Map<string, number>();
  private lastSweepAt = Number.NEGATIVE_INFINITY;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly servers: DatabaseServers,
    private readonly clock: Clock,
    private readonly metrics: Metrics,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  /** Stops folding, once a fold under way has finished (shutdown; tests that show what a stopped fold means). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Folds every change, from the first, until nothing is left or another instance holds the turn. */
  async foldPending(): Promise<number> {
    return this.fold('first');
  }

  /** The background fold: past the last change folded, and from the first once a sweep is due. */
  private foldScheduled(): Promise<number> {
    return this.fold(this.clock.now() - this.lastSweepAt >= FOLD_SWEEP_INTERVAL_MS ? 'first' : 'resume');
  }

  private async fold(from: 'first' | 'resume'): Promise<number> {
    if (this.dataSource.options.type !== 'mysql') return this.foldEmbedded();
    // A pooled connection taken through the primary's admission, so that a fold never holds one a request was promised.
    const unbounded = new RequestDeadline(Number.POSITIVE_INFINITY, this.clock);
    return await this.servers.primary.admission.runAdmitted((runner) => this.foldOn(runner, from), unbounded, {
      paced: false,
    });
  }

  private async foldOn(runner: QueryRunner, from: 'first' | 'resume'): Promise<number> {
    if (!(await this.takeTurn(runner))) return 0;
    const startedAt = this.clock.now();
    let folded = 0;
    try {
      for (const source of SOURCES) folded += await this.foldSource(runner, source, from);
    } finally {
      await runner.query('DO RELEASE_LOCK(?)', [FOLD_LOCK]);
    }
    if (from === 'first') this.lastSweepAt = startedAt;
    return folded;
  }

  private async foldSource(runner: QueryRunner, source: CountSource, from: 'first' | 'resume'): Promise<number> {
    let after = from === 'first' ? 0 : (this.foldedThrough.get(source.table) ?? 0);
    let folded = 0;
    for (;;) {
      const moved = await this.foldBatch(runner, source, after);
      folded += moved.count;
      after = moved.lastId ?? after;
      if (moved.count < FOLD_BATCH || this.stopped) break;
    }
    // A sweep's end is where every row before it was folded, even after the table's ids started again.
    this.foldedThrough.set(source.table, after);
    return folded;
  }

  /** The embedded database is one shared connection: a fold of several awaited statements would let requests in. */
  private foldEmbedded(): number {
    const driver = this.dataSource.driver as SqljsDriver;
    const database = driver.databaseConnection as SqljsDatabase;
    const [[pending]] = database.exec(PENDING_ROWS)[0]?.values ?? [[0]];
    if (Number(pending) === 0) return 0;
    database.exec(['BEGIN', foldEverything('sqlite'), ...EMPTY_PENDING.sqlite, 'COMMIT;'].join(';\n'));
    void driver.autoSave();
    return Number(pending);
  }

  private async takeTurn(runner: QueryRunner): Promise<boolean> {
    const [{ acquired }] = (await runner.query('SELECT GET_LOCK(?, 0) AS acquired', [FOLD_LOCK])) as Array<{
      acquired: number | null;
    }>;
    return Number(acquired) === 1;
  }

  /** Moves the first rows past `after` into the totals, in one transaction; returns how many, and the last id. */
  private async foldBatch(
    runner: QueryRunner,
    { table, columns, deltas }: CountSource,
    after: number,
  ): Promise<{ count: number; lastId?: number }> {
    // No gap locks: writers appending rows past the ones folded here never wait for this transaction.
    await runner.startTransaction('READ COMMITTED');
    try {
      // Locked, the rows moved are exact: a row being written is waited for, and only the rows read here are deleted.
      const rows = (await runner.query(
        `SELECT id, ${columns} FROM ${table} WHERE id > ? ORDER BY id LIMIT ${FOLD_BATCH} FOR UPDATE`,
        [after],
      )) as Array<Record<string, unknown> & { id: number }>;
      if (rows.length > 0) {
        const totals = totalsOf(rows.flatMap(deltas)).filter(({ delta, bounds }) => delta !== 0 || bounds);
        if (totals.length > 0) {
          await runner.query(
            `INSERT INTO ${DAILY_COUNTS_TABLE} (day, status, orders, ${BOUND_COLUMNS.join(', ')}, widened)
             VALUES ${totals.map(() => '(?, ?, ?, ?, ?, ?, ?, 1)').join(', ')}
             ON DUPLICATE KEY UPDATE ${addedAndWidened('mysql')}`,
            totals.flatMap(({ day, status, delta, bounds }) => [
              day,
              status,
              delta,
              ...(bounds ?? [null, null, null, null]),
            ]),
          );
        }
        await runner.query(
          `DELETE FROM ${table} WHERE id IN (${rows.map(() => '?').join(', ')})`,
          rows.map(({ id }) => id),
        );
      }
      await runner.commitTransaction();
      return { count: rows.length, lastId: rows.length > 0 ? Number(rows[rows.length - 1].id) : undefined };
    } catch (error) {
      await runner.rollbackTransaction().catch(() => undefined);
      throw error;
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => {
        this.running = undefined;
        this.schedule();
      });
    }, FOLD_INTERVAL_MS);
    // Folding alone must not keep the process alive.
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    try {
      const folded = await this.foldScheduled();
      this.metrics.countChangesFolded.inc(folded);
      this.metrics.countFoldLastSuccess.setToCurrentTime();
      if (this.failing) this.logger.log('Folding order count changes again');
      this.failing = false;
    } catch (error) {
      // The primary may be down (reads go on from replicas); counts stay exact, only reads scan more changes.
      if (!this.failing) {
        this.logger.warn(
          `Cannot fold order count changes (counts stay exact; reads get slower as changes pile up): ${String(
            (error as { code?: string; message?: string }).code ?? (error as Error).message,
          )}`,
        );
      }
      this.failing = true;
    }
  }
}

/** The counting rows' deltas summed per (day, status), with the bounds of the orders they bring. */
function totalsOf(deltas: Delta[]): Total[] {
  const totals = new Map<string, Total>();
  for (const { day, status, delta, order } of deltas) {
    const key = `${day}|${status}`;
    const total = totals.get(key) ?? { day, status, delta: 0 };
    total.delta += delta;
    if (order) {
      const [firstId, lastId, lowest, highest] = total.bounds ?? [order.id, order.id, order.concertId, order.concertId];
      total.bounds = [
        Math.min(firstId, order.id),
        Math.max(lastId, order.id),
        Math.min(lowest, order.concertId),
        Math.max(highest, order.concertId),
      ];
    }
    totals.set(key, total);
  }
  return [...totals.values()];
}
