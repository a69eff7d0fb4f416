import { describe, expect, it } from '@jest/globals';
import type { DataSource, QueryRunner } from 'typeorm';
import { toDatabaseConfig, type DatabaseConfig } from '../config/database.config';
import { validateEnvironment } from '../config/environment';
import { DatabaseAdmission } from './database-admission';
import { DatabaseSaturatedException, DatabaseUnavailableException } from './database-errors';

/** A MySQL configuration as the service reads it from the environment, with the pool and deadline under test. */
const mysql = (poolSize: number, queryTimeoutMs: number): DatabaseConfig =>
  toDatabaseConfig(
    validateEnvironment({
      DB_TYPE: 'mysql',
      DB_POOL_SIZE: String(poolSize),
      DB_QUERY_TIMEOUT_MS: String(queryTimeoutMs),
    }),
  );

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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('DatabaseAdmission', () => {
  it('lends at most as many connections as the pool has, and serves the others in turn', async () => {
    const { dataSource, lent } = fakeDataSource();
    const admission = new DatabaseAdmission(dataSource, mysql(3, 5000));
    const finished: number[] = [];
    await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        admission.withConnection(async () => {
          await sleep(5);
          finished.push(index);
        }),
      ),
    );
    expect(lent.most).toBe(3);
    expect(lent.now).toBe(0);
    // First come, first served: the order of arrival, three at a time.
    expect(finished.slice(0, 3).sort()).toEqual([0, 1, 2]);
    expect(finished.slice(9).sort()).toEqual([10, 11, 9]);
  });

  it('refuses as busy a request that waited as long as it could still be answered', async () => {
    const { dataSource } = fakeDataSource();
    const admission = new DatabaseAdmission(dataSource, mysql(1, 200));
    // The estimate says requests hold their connection about 10 ms, so six fit in the deadline; they take 60 ms each.
    await admission.withConnection(() => sleep(10));
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, () =>
        admission
          .withConnection(() => sleep(60))
          .then(
            () => 'served',
            (error: unknown) => (error instanceof DatabaseSaturatedException ? 'busy' : 'other'),
          ),
      ),
    );
    expect(outcomes.slice(0, 3)).toEqual(['served', 'served', 'served']);
    expect(outcomes.slice(4)).toEqual(['busy', 'busy']);
  });

  it('refuses at once when the wait list is longer than the deadline can drain at the measured pace', async () => {
    const { dataSource } = fakeDataSource();
    const admission = new DatabaseAdmission(dataSource, mysql(1, 200));
    await admission.withConnection(() => sleep(30));
    const started = Date.now();
    const attempts = Array.from({ length: 12 }, () =>
      admission
        .withConnection(() => sleep(30))
        .then(
          () => 'served',
          (error: unknown) => (error instanceof DatabaseSaturatedException ? 'busy' : 'other'),
        ),
    );
    const outcomes = await Promise.all(attempts);
    expect(outcomes.filter((outcome) => outcome === 'served').length).toBeGreaterThanOrEqual(4);
    expect(outcomes.filter((outcome) => outcome === 'busy').length).toBeGreaterThanOrEqual(5);
    expect(outcomes).not.toContain('other');
    // Nobody was kept past the deadline and a statement's time.
    expect(Date.now() - started).toBeLessThan(200 + 250);
  });

  it('names the database as the cause when the requests ahead are stuck on it', async () => {
    const { dataSource } = fakeDataSource();
    const admission = new DatabaseAdmission(dataSource, mysql(1, 200));
    const stuck = admission.withConnection(() => sleep(300));
    await expect(admission.withConnection(() => sleep(1))).rejects.toBeInstanceOf(DatabaseUnavailableException);
    await stuck;
  });

  it('stops work whose request’s deadline has passed with the deadline’s 503', async () => {
    const { dataSource } = fakeDataSource();
    const admission = new DatabaseAdmission(dataSource, mysql(1, 100));
    const outcome = admission.withConnection(async (_runner, withinDeadline) => {
      withinDeadline();
      await sleep(150);
      withinDeadline();
      return 'went on';
    });
    await expect(outcome).rejects.toMatchObject({ problem: { status: 503, reason: 'timeout' } });
  });

  it('does not queue on the embedded database', async () => {
    const { dataSource, lent } = fakeDataSource();
    const admission = new DatabaseAdmission(dataSource, { type: 'sqlite', path: ':memory:' });
    await Promise.all(Array.from({ length: 20 }, () => admission.withConnection(() => sleep(5))));
    expect(lent.most).toBe(20);
  });
});
