import { describe, expect, it, jest } from '@jest/globals';
import type { QueryRunner } from 'typeorm';
import type { Clock } from '../common/time/clock';
import type { DatabaseServer } from './database-server';
import { RequestDeadline } from './request-deadline';
import { ServerAttempt, SNAPSHOT_STATEMENTS } from './server-attempt';
import { StatementTimings } from './statement-timings';

const clock: Clock = { now: () => Date.now() };

describe('ServerAttempt', () => {
  it('stops the statement of a reader that no longer wants it, and keeps its connection out of the pool', async () => {
    const connection = { threadId: 42, destroy: jest.fn() };
    // The runner TypeORM lends holds the connection its statement runs on; nothing else of it is used here.
    const runner = { databaseConnection: connection } as unknown as QueryRunner;
    // A server that answers: only the interruption is asked of it.
    const interrupt = jest.fn((threadId: number) => Promise.resolve(void threadId));
    const server = { interrupt, health: { answering: true }, timings: new StatementTimings(clock) };
    const cancelled = new AbortController();
    const attempt = new ServerAttempt(
      runner,
      new RequestDeadline(2000, clock),
      server as unknown as DatabaseServer,
      false,
      cancelled.signal,
    );
    let fail: (error: Error) => void = () => undefined;
    const statement = attempt.statement(
      () =>
        new Promise((_, reject) => {
          fail = reject;
        }),
    );
    cancelled.abort();
    expect(interrupt).toHaveBeenCalledWith(42);
    expect(connection.destroy).not.toHaveBeenCalled();
    // The KILL ends the statement; it might as well have landed after the statement ended, so the connection must
    // serve no other request.
    fail(new Error('Query execution was interrupted'));
    await expect(statement).rejects.toThrow('interrupted');
    expect(connection.destroy).toHaveBeenCalledTimes(1);
  });

  describe('a snapshot (docs/adr/0015)', () => {
    /** A runner that records what it is sent; `failing` names the statement it answers with an error. */
    const recordingRunner = (failing?: string) => {
      const sent: string[] = [];
      const connection = { threadId: 7, destroy: jest.fn() };
      const runner = {
        databaseConnection: connection,
        query: (sql: string) => {
          sent.push(sql);
          return sql === failing ? Promise.reject(new Error('Connection lost')) : Promise.resolve([]);
        },
      } as unknown as QueryRunner;
      // A server that answers; only its timings are read around each statement.
      const server = { health: { answering: true }, timings: new StatementTimings(clock) };
      const attempt = new ServerAttempt(
        runner,
        new RequestDeadline(2000, clock),
        server as unknown as DatabaseServer,
        false,
      );
      return { attempt, sent, connection };
    };

    it('is begun once, and ended when the work on its connection ends', async () => {
      const { attempt, sent, connection } = recordingRunner();
      await expect(
        attempt.run(async (session) => {
          await session.beginSnapshot();
          await session.beginSnapshot();
          await session.statement(() => session.runner.query('SELECT 1'));
          return 'page';
        }),
      ).resolves.toBe('page');
      expect(sent).toEqual([SNAPSHOT_STATEMENTS.begin, 'SELECT 1', SNAPSHOT_STATEMENTS.end]);
      expect(connection.destroy).not.toHaveBeenCalled();
    });

    it('is ended when the work fails, and a connection that cannot end it is closed, not pooled', async () => {
      const failed = recordingRunner();
      await expect(
        failed.attempt.run(async (session) => {
          await session.beginSnapshot();
          throw new Error('the page failed');
        }),
      ).rejects.toThrow('the page failed');
      expect(failed.sent).toEqual([SNAPSHOT_STATEMENTS.begin, SNAPSHOT_STATEMENTS.end]);

      const lost = recordingRunner(SNAPSHOT_STATEMENTS.end);
      await expect(lost.attempt.run((session) => session.beginSnapshot())).resolves.toBeUndefined();
      expect(lost.connection.destroy).toHaveBeenCalledTimes(1);
    });

    it('sends nothing around work that began none', async () => {
      const { attempt, sent } = recordingRunner();
      await expect(attempt.run(() => Promise.resolve(3))).resolves.toBe(3);
      expect(sent).toEqual([]);
    });
  });
});
