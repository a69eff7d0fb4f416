import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { DataSource, QueryRunner } from 'typeorm';
import type { Clock } from '../../common/time/clock';
import type { DatabaseServers } from '../../database/database-servers';
import type { Metrics } from '../../observability/metrics';
import { FOLD_INTERVAL_MS, FOLD_SWEEP_INTERVAL_MS, OrderCountFolding } from './order-count-folding';

// Jest's fake timers move Date.now and every setTimeout together: the test decides when a fold is due.
const clock: Clock = { now: () => Date.now() };

/**
 * The counting tables as the fold's statements see them: a locking read of the first rows past an id, the totals'
 * upsert, and the delete of the rows read. Only the fold's own statements are answered; anything else fails the test.
 */
class CountingTables {
  /** `order_count_changes`: a change of one (day, status), and the order it adds (none where it takes one away). */
  readonly changes = new Map<
    number,
    { day: string; status: string; delta: number; orderId: number | null; concertId: number | null }
  >();
  /** `order_count_moves`: one order of a day moved from one status to another. */
  readonly moves = new Map<
    number,
    { day: string; fromStatus: string; toStatus: string; orderId: number; concertId: number }
  >();
  /** The id each locking read of the changes started past, in order. */
  readonly readPast: number[] = [];
  readonly totals = new Map<string, number>();
  /** Each (day, status)'s first and last id, lowest and highest concert, widened as the upsert's clause does. */
  readonly bounds = new Map<string, number[]>();

  /** The order's id is the change's own unless given; its concert the id's hundreds. */
  add(id: number, status = 'PAYMENT_PENDING', delta = 1, orderId: number | null = delta > 0 ? id : null): void {
    const concertId = orderId === null ? null : Math.floor(orderId / 100);
    this.changes.set(id, { day: '2026-11-27', status, delta, orderId, concertId });
  }

  move(id: number, fromStatus: string, toStatus: string, orderId = id): void {
    this.moves.set(id, { day: '2026-11-27', fromStatus, toStatus, orderId, concertId: Math.floor(orderId / 100) });
  }

  runner(): QueryRunner {
    const tableIn = (sql: string): Map<number, object> =>
      sql.includes('order_count_moves') ? this.moves : this.changes;
    const query = (sql: string, parameters: unknown[] = []): Promise<unknown> => {
      if (sql.includes('GET_LOCK')) return Promise.resolve([{ acquired: 1 }]);
      if (sql.includes('RELEASE_LOCK')) return Promise.resolve([]);
      if (sql.includes('FOR UPDATE')) {
        const after = Number(parameters[0]);
        const table = tableIn(sql);
        if (table === this.changes) this.readPast.push(after);
        const ids = [...table.keys()].filter((id) => id > after).sort((a, b) => a - b);
        return Promise.resolve(ids.map((id) => ({ id, ...table.get(id) })));
      }
      if (sql.startsWith('INSERT INTO order_daily_counts')) {
        for (let at = 0; at < parameters.length; at += 7) {
          const key = `${String(parameters[at])}|${String(parameters[at + 1])}`;
          this.totals.set(key, (this.totals.get(key) ?? 0) + Number(parameters[at + 2]));
          const incoming = parameters.slice(at + 3, at + 7) as Array<number | null>;
          if (incoming[0] === null) continue;
          const [firstId, lastId, lowest, highest] = this.bounds.get(key) ?? (incoming as number[]);
          this.bounds.set(key, [
            Math.min(firstId, incoming[0]),
            Math.max(lastId, Number(incoming[1])),
            Math.min(lowest, Number(incoming[2])),
            Math.max(highest, Number(incoming[3])),
          ]);
        }
        return Promise.resolve([]);
      }
      if (sql.startsWith('DELETE FROM')) {
        const table = tableIn(sql);
        for (const id of parameters) table.delete(Number(id));
        return Promise.resolve([]);
      }
      return Promise.reject(new Error(`unexpected statement: ${sql}`));
    };
    // Transactions are the database's business; what is tested is which rows the fold reads and moves.
    return {
      query: (sql: string, parameters?: unknown[]) => query(sql.trim(), parameters),
      startTransaction: () => Promise.resolve(),
      commitTransaction: () => Promise.resolve(),
      rollbackTransaction: () => Promise.resolve(),
    } as unknown as QueryRunner;
  }
}

function folding(table: CountingTables): OrderCountFolding {
  // Only what the fold reaches for: the database's type, the primary's admission handing it a connection, and the
  // two metrics it updates after each scheduled fold.
  const dataSource = { options: { type: 'mysql' } } as unknown as DataSource;
  const servers = {
    primary: { admission: { runAdmitted: (work: (runner: QueryRunner) => unknown) => work(table.runner()) } },
  } as unknown as DatabaseServers;
  const metrics = {
    countChangesFolded: { inc: () => undefined },
    countFoldLastSuccess: { setToCurrentTime: () => undefined },
  } as unknown as Metrics;
  return new OrderCountFolding(dataSource, servers, clock, metrics);
}

/** A fold running in the background, once its first scheduled fold (a sweep, as after every start) has run. */
async function foldedOnce(table: CountingTables): Promise<OrderCountFolding> {
  const fold = folding(table);
  fold.onApplicationBootstrap();
  await jest.advanceTimersByTimeAsync(FOLD_INTERVAL_MS);
  return fold;
}

describe('OrderCountFolding: where each fold starts (docs/API.md §7)', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  it('starts past the last change it folded, and from the first once a sweep is due', async () => {
    const table = new CountingTables();
    // Change 2 has its id but is not in the index yet, as when its writer's insert is a moment behind change 3's.
    table.add(1);
    table.add(3);
    const fold = await foldedOnce(table);
    expect(table.readPast).toEqual([0]);
    expect([...table.changes.keys()]).toEqual([]);

    table.add(2, 'PAYMENT_COMPLETED');
    table.add(4);
    await jest.advanceTimersByTimeAsync(FOLD_INTERVAL_MS);
    // Past change 3: change 2, behind it, is left to the reads, which sum every change not folded.
    expect(table.readPast).toEqual([0, 3]);
    expect([...table.changes.keys()]).toEqual([2]);

    // The first fold was a sweep: the next is due a sweep interval after it, and is the last fold of this wait.
    await jest.advanceTimersByTimeAsync(FOLD_SWEEP_INTERVAL_MS - FOLD_INTERVAL_MS);
    expect(table.readPast.at(-1)).toBe(0);
    expect([...table.changes.keys()]).toEqual([]);
    expect(Object.fromEntries(table.totals)).toEqual({
      '2026-11-27|PAYMENT_PENDING': 3,
      '2026-11-27|PAYMENT_COMPLETED': 1,
    });
    await fold.stop();
  });

  it('folds every change from the first when asked to fold what is pending', async () => {
    const table = new CountingTables();
    table.add(5);
    const fold = await foldedOnce(table);
    await fold.stop();
    table.add(1);

    await expect(fold.foldPending()).resolves.toBe(1);
    expect(table.readPast).toEqual([0, 0]);
    expect(table.changes.size).toBe(0);
  });

  it('starts again from the first after a sweep finds the ids begun again, as after the table was emptied', async () => {
    const table = new CountingTables();
    table.add(9_000);
    const fold = await foldedOnce(table);
    table.add(1);
    table.add(2);
    await jest.advanceTimersByTimeAsync(FOLD_SWEEP_INTERVAL_MS);
    table.add(3);
    await jest.advanceTimersByTimeAsync(FOLD_INTERVAL_MS);

    // The sweep folded 1 and 2 and ended there, so the next fold resumed past 2, not past 9,000.
    expect(table.readPast.slice(-2)).toEqual([0, 2]);
    expect(table.changes.size).toBe(0);
    await fold.stop();
  });

  it('folds a move as one order taken from the status it left and added to the one it reached', async () => {
    const table = new CountingTables();
    table.add(1);
    table.add(2);
    table.move(1, 'PAYMENT_PENDING', 'PAYMENT_COMPLETED');
    const fold = await foldedOnce(table);
    await fold.stop();

    expect(table.moves.size).toBe(0);
    expect(Object.fromEntries(table.totals)).toEqual({
      '2026-11-27|PAYMENT_PENDING': 1,
      '2026-11-27|PAYMENT_COMPLETED': 1,
    });
  });

  it('widens the bounds of the (day, status) an order is added or moved to, and of none it leaves (docs/adr/0020)', async () => {
    const table = new CountingTables();
    table.add(1, 'PAYMENT_PENDING', 1, 4_210);
    table.add(2, 'PAYMENT_PENDING', 1, 4_390);
    // Taken away (deleted): the bounds keep holding it, as bounds only widen.
    table.add(3, 'PAYMENT_PENDING', -1);
    // An order moved to another concert within its day and status: no count, bounds of its own.
    table.add(4, 'PAYMENT_PENDING', 0, 9_020);
    table.move(5, 'PAYMENT_PENDING', 'REFUNDED', 4_210);
    const fold = await foldedOnce(table);
    await fold.stop();

    expect(Object.fromEntries(table.totals)).toEqual({
      '2026-11-27|PAYMENT_PENDING': 0,
      '2026-11-27|REFUNDED': 1,
    });
    expect(Object.fromEntries(table.bounds)).toEqual({
      '2026-11-27|PAYMENT_PENDING': [4_210, 9_020, 42, 90],
      '2026-11-27|REFUNDED': [4_210, 4_210, 42, 42],
    });
  });
});
