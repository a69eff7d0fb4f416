import { describe, expect, it, jest } from '@jest/globals';
import type { QueryRunner } from 'typeorm';
import type { Clock } from '../common/time/clock';
import type { DatabaseServer } from './database-server';
import { RequestDeadline } from './request-deadline';
import { ServerAttempt } from './server-attempt';
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
});
