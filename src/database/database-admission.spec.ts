import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { DataSource, QueryRunner } from 'typeorm';
import type { Clock } from '../common/time/clock';
import { DatabaseAdmission } from './database-admission';
import { DatabaseSaturatedError, DatabaseUnavailableError } from './database-errors';
import { RequestDeadline } from './request-deadline';
import { StatementTimings } from './statement-timings';

// Jest's fake timers move Date.now and every setTimeout together: the test decides when time passes.
const clock: Clock = { now: () => Date.now() };
// Time is faked, not the event loop's turns: a deadline decides who is to blame after the I/O of its turn (setImmediate).
const CLOCK_ONLY = { doNotFake: ['setImmediate' as const] };

/** Counts the connections lent and given back; admission never runs a statement itself. */
function fakeDataSource() {
  const lent = { now: 0, most: 0 };
  const dataSource = {
    createQueryRunner: (): QueryRunner => {
      lent.now += 1;
      lent.most = Math.max(lent.most, lent.now);
      return { release: () => Promise.resolve(void (lent.now -= 1)) } as unknown as QueryRunner;
    },
  } as unknown as DataSource;
  return { dataSource, lent };
}

/** A request's statements that keep its connection for `ms` of the fake clock. */
const holdFor = (ms: number) => () => new Promise<void>((resolve) => setTimeout(resolve, ms));

const outcomeOf = (attempt: Promise<unknown>) =>
  attempt.then(
    () => 'served',
    (error: unknown) =>
      error instanceof DatabaseSaturatedError
        ? 'busy'
        : error instanceof DatabaseUnavailableError
          ? 'database'
          : 'other',
  );

describe('DatabaseAdmission', () => {
  beforeEach(() => {
    jest.useFakeTimers(CLOCK_ONLY);
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  it('lends at most as many connections as the pool has, and serves the others in turn', async () => {
    const { dataSource, lent } = fakeDataSource();
    const admission = new DatabaseAdmission(dataSource, 3, clock, new StatementTimings(clock));
    const finished: number[] = [];
    const all = Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        admission.runAdmitted(
          async () => {
            await holdFor(5)();
            finished.push(index);
          },
          new RequestDeadline(5000, clock),
        ),
      ),
    );
    await jest.advanceTimersByTimeAsync(20);
    await all;
    expect(lent.most).toBe(3);
    expect(lent.now).toBe(0);
    // First come, first served: the order of arrival, three at a time.
    const byNumber = (a: number, b: number) => a - b;
    expect(finished.slice(0, 3).sort(byNumber)).toEqual([0, 1, 2]);
    expect(finished.slice(9).sort(byNumber)).toEqual([9, 10, 11]);
  });

  it('refuses as busy a request that waited as long as it could still be answered', async () => {
    const { dataSource } = fakeDataSource();
    const admission = new DatabaseAdmission(dataSource, 1, clock, new StatementTimings(clock));
    // The estimate starts at 10 ms a request, so all six fit in the 200 ms budget; each then holds 60 ms.
    const warmUp = admission.runAdmitted(holdFor(10), new RequestDeadline(200, clock));
    await jest.advanceTimersByTimeAsync(10);
    await warmUp;
    const outcomes = Promise.all(
      Array.from({ length: 6 }, () => outcomeOf(admission.runAdmitted(holdFor(60), new RequestDeadline(200, clock)))),
    );
    await jest.advanceTimersByTimeAsync(400);
    // Turns come at 0, 60, 120 and 180 ms; at 190 ms (the budget less the estimate) the last two give up.
    await expect(outcomes).resolves.toEqual(['served', 'served', 'served', 'served', 'busy', 'busy']);
  });

  it('refuses at once when the wait list is longer than the deadline can drain at the measured pace', async () => {
    const { dataSource } = fakeDataSource();
    const admission = new DatabaseAdmission(dataSource, 1, clock, new StatementTimings(clock));
    const warmUp = admission.runAdmitted(holdFor(30), new RequestDeadline(200, clock));
    await jest.advanceTimersByTimeAsync(30);
    await warmUp;
    const started = clock.now();
    const settledAt: number[] = [];
    const outcomes = Promise.all(
      Array.from({ length: 12 }, () =>
        outcomeOf(admission.runAdmitted(holdFor(30), new RequestDeadline(200, clock))).then((outcome) => {
          settledAt.push(clock.now() - started);
          return outcome;
        }),
      ),
    );
    // At 30 ms a request, one holding and six waiting fill the 200 ms budget; the other five are refused
    // before any time passes.
    await jest.advanceTimersByTimeAsync(0);
    expect(settledAt).toEqual([0, 0, 0, 0, 0]);
    await jest.advanceTimersByTimeAsync(400);
    // Six are served (turns at 0 to 150 ms); the seventh's turn would come at 180 ms, too late for its 30 ms.
    await expect(outcomes).resolves.toEqual([...Array<string>(6).fill('served'), ...Array<string>(6).fill('busy')]);
    expect(Math.max(...settledAt)).toBeLessThanOrEqual(200);
  });

  it('names the database as the cause when the statement ahead has waited half the budget for an answer', async () => {
    const { dataSource } = fakeDataSource();
    const timings = new StatementTimings(clock);
    const admission = new DatabaseAdmission(dataSource, 1, clock, timings);
    const stuck = admission.runAdmitted(
      async () => {
        // A statement the server does not answer for 300 ms.
        const sent = timings.sent();
        await holdFor(300)();
        timings.answered(sent);
      },
      new RequestDeadline(200, clock),
    );
    const behind = outcomeOf(admission.runAdmitted(holdFor(1), new RequestDeadline(200, clock)));
    await jest.advanceTimersByTimeAsync(300);
    await expect(behind).resolves.toBe('database');
    await stuck;
  });

  it('does not queue on the embedded database', async () => {
    const { dataSource, lent } = fakeDataSource();
    const admission = new DatabaseAdmission(dataSource, Number.POSITIVE_INFINITY, clock, new StatementTimings(clock));
    const all = Promise.all(
      Array.from({ length: 20 }, () =>
        admission.runAdmitted(holdFor(5), new RequestDeadline(Number.POSITIVE_INFINITY, clock)),
      ),
    );
    await jest.advanceTimersByTimeAsync(5);
    await all;
    expect(lent.most).toBe(20);
  });

  it('lets work without a deadline wait as long as it takes, never refusing it', async () => {
    const { dataSource } = fakeDataSource();
    const admission = new DatabaseAdmission(dataSource, 1, clock, new StatementTimings(clock));
    const request = admission.runAdmitted(holdFor(5000), new RequestDeadline(10_000, clock));
    const fold = outcomeOf(
      admission.runAdmitted(holdFor(10), new RequestDeadline(Number.POSITIVE_INFINITY, clock), { paced: false }),
    );
    await jest.advanceTimersByTimeAsync(5010);
    await request;
    await expect(fold).resolves.toBe('served');
  });

  it('gives background work its turn without letting its length change the pace requests are judged by', async () => {
    const { dataSource } = fakeDataSource();
    const admission = new DatabaseAdmission(dataSource, 1, clock, new StatementTimings(clock));
    const warmUp = admission.runAdmitted(holdFor(30), new RequestDeadline(200, clock));
    await jest.advanceTimersByTimeAsync(30);
    await warmUp;
    // A fold that holds the only connection for 150 ms, then seven requests queued behind it.
    const fold = admission.runAdmitted(holdFor(150), new RequestDeadline(Number.POSITIVE_INFINITY, clock), {
      paced: false,
    });
    await jest.advanceTimersByTimeAsync(150);
    await fold;
    const outcomes = Promise.all(
      Array.from({ length: 7 }, () => outcomeOf(admission.runAdmitted(holdFor(30), new RequestDeadline(200, clock)))),
    );
    await jest.advanceTimersByTimeAsync(400);
    // Judged at 30 ms a request, as before the fold: all seven wait, six are served and the last gives up at 170 ms,
    // when its turn would come too late. Judged at the fold's pace, three would have been refused at once.
    await expect(outcomes).resolves.toEqual([...Array<string>(6).fill('served'), 'busy']);
  });

  it('closes the pool’s connections to a server no longer behind its address: idle ones now, lent ones when given back', async () => {
    const connection = (name: string) => ({ name, destroy: jest.fn() });
    const idle = connection('idle');
    const lent = connection('lent');
    const released: string[] = [];
    // The pool as mysql2 keeps it: every connection, and the free ones.
    const pool = { _allConnections: { toArray: () => [idle, lent] }, _freeConnections: { toArray: () => [idle] } };
    const dataSource = {
      driver: { pool },
      createQueryRunner: () =>
        ({
          databaseConnection: lent,
          release: () => Promise.resolve(void released.push('lent')),
        }) as unknown as QueryRunner,
    } as unknown as DataSource;
    const admission = new DatabaseAdmission(dataSource, 2, clock, new StatementTimings(clock));
    await admission.runAdmitted(
      () => {
        admission.retireConnections();
        expect(idle.destroy).toHaveBeenCalledTimes(1);
        expect(lent.destroy).not.toHaveBeenCalled();
        return Promise.resolve();
      },
      new RequestDeadline(1000, clock),
    );
    // Closed before the runner gives it back, so that the pool never lends it again.
    expect(lent.destroy).toHaveBeenCalledTimes(1);
    expect(released).toEqual(['lent']);
  });
});
