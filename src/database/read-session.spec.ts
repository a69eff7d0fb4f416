import { describe, expect, it, jest } from '@jest/globals';
import type { QueryRunner } from 'typeorm';
import type { Clock } from '../common/time/clock';
import type { DatabaseServer } from './database-server';
import { RequestDeadline } from './request-deadline';
import {
  ReadSession,
  SNAPSHOT_STATEMENTS,
  type LastOnConnection,
  type Statement,
  type StatementKind,
} from './read-session';
import { EMBEDDED_CATALOG, UNKNOWN_CATALOG, type ServerCatalog } from './server-catalog';
import { StatementTimings } from './statement-timings';

const clock: Clock = { now: () => Date.now() };

/** As the router runs a unit of work: the work, then the session's end, whatever the work's outcome. */
const unitOfWork = <T>(session: ReadSession, work: (session: ReadSession) => Promise<T>): Promise<T> =>
  work(session).finally(() => session.end());

/** One statement sent alone, as the repository sends a page: its own result. */
const one = async (session: ReadSession, kind: StatementKind, statement: Statement, options?: LastOnConnection) => {
  const [result] = await session.read<[unknown]>(kind, [statement], options);
  return result;
};

describe('ReadSession', () => {
  it('stops the statement of a reader that no longer wants it, and keeps its connection out of the pool', async () => {
    const connection = { threadId: 42, destroy: jest.fn() };
    // The runner TypeORM lends holds the connection its statement runs on; nothing else of it is used here.
    let fail: (error: Error) => void = () => undefined;
    // Its statement runs until the KILL ends it.
    const runner = {
      databaseConnection: connection,
      query: () =>
        new Promise((_, reject) => {
          fail = reject;
        }),
    } as unknown as QueryRunner;
    // A server that answers: only the interruption is asked of it.
    const interrupt = jest.fn((threadId: number) => Promise.resolve(void threadId));
    const server = {
      interrupt,
      health: { answering: true },
      timings: new StatementTimings(clock),
      catalog: UNKNOWN_CATALOG,
    };
    const cancelled = new AbortController();
    const session = new ReadSession(runner, new RequestDeadline(2000, clock), server as unknown as DatabaseServer, {
      cancelled: cancelled.signal,
    });
    const statement = session.read('page', [['SELECT 1', []]]);
    cancelled.abort();
    expect(interrupt).toHaveBeenCalledWith(42);
    expect(connection.destroy).not.toHaveBeenCalled();
    // The KILL ends the statement; it might as well have landed after the statement ended, so the connection must
    // serve no other request.
    fail(new Error('Query execution was interrupted'));
    await expect(statement).rejects.toThrow('interrupted');
    expect(connection.destroy).toHaveBeenCalledTimes(1);
  });

  describe('round trips (docs/adr/0022) and a snapshot (docs/adr/0020)', () => {
    /**
     * A runner that records what it is sent and answers each statement of a round trip with a result naming it, as
     * the driver answers several statements with one result each; `failing` names a round trip answered with an error.
     */
    const recordingRunner = (failing?: string, catalog: ServerCatalog = UNKNOWN_CATALOG) => {
      const sent: string[] = [];
      const recorded: unknown[][] = [];
      const connection = { threadId: 7, destroy: jest.fn() };
      const runner = {
        databaseConnection: connection,
        query: (sql: string, parameters: unknown[] = []) => {
          sent.push(sql);
          recorded.push(parameters);
          if (sql === failing) return Promise.reject(new Error('Connection lost'));
          const results = sql.split(';\n').map((statement) => `result of ${statement}`);
          return Promise.resolve(results.length === 1 ? results[0] : results);
        },
      } as unknown as QueryRunner;
      // A server that answers, MySQL unless told; only its timings and kind are read around each statement.
      const server = { health: { answering: true }, timings: new StatementTimings(clock), catalog };
      const attempt = new ReadSession(runner, new RequestDeadline(2000, clock), server as unknown as DatabaseServer);
      return { attempt, sent, recorded, connection };
    };
    const { begin, end } = SNAPSHOT_STATEMENTS;

    it('begins in the round trip of the next statement and ends in that of the last, adding none', async () => {
      const { attempt, sent, connection } = recordingRunner();
      const answers = await unitOfWork(attempt, async (session) => {
        session.beginSnapshot();
        session.beginSnapshot();
        return [
          await one(session, 'page', ['SELECT 1', []]),
          await one(session, 'page', ['SELECT 2', []]),
          await one(session, 'page', ['SELECT 3', []], { last: true }),
        ];
      });
      expect(sent).toEqual([`${begin};\nSELECT 1`, 'SELECT 2', `SELECT 3;\n${end}`]);
      // Each statement is answered its own result, not the snapshot's.
      expect(answers).toEqual(['result of SELECT 1', 'result of SELECT 2', 'result of SELECT 3']);
      expect(connection.destroy).not.toHaveBeenCalled();
    });

    it('is ended on its own when the work fails before its last statement, or that statement fails', async () => {
      const failed = recordingRunner();
      await expect(
        unitOfWork(failed.attempt, async (session) => {
          session.beginSnapshot();
          await one(session, 'page', ['SELECT 1', []]);
          throw new Error('the page failed');
        }),
      ).rejects.toThrow('the page failed');
      expect(failed.sent).toEqual([`${begin};\nSELECT 1`, end]);

      const lastFailed = recordingRunner(`SELECT 2;\n${end}`);
      await expect(
        unitOfWork(lastFailed.attempt, async (session) => {
          session.beginSnapshot();
          await one(session, 'page', ['SELECT 1', []]);
          return one(session, 'page', ['SELECT 2', []], { last: true });
        }),
      ).rejects.toThrow('Connection lost');
      expect(lastFailed.sent).toEqual([`${begin};\nSELECT 1`, `SELECT 2;\n${end}`, end]);
    });

    it('closes a connection that cannot end it rather than pooling it', async () => {
      const lost = recordingRunner(end);
      await expect(
        unitOfWork(lost.attempt, async (session) => {
          session.beginSnapshot();
          return one(session, 'page', ['SELECT 1', []]);
        }),
      ).resolves.toBe('result of SELECT 1');
      expect(lost.sent).toEqual([`${begin};\nSELECT 1`, end]);
      expect(lost.connection.destroy).toHaveBeenCalledTimes(1);
    });

    it('sends statements in one round trip, between the snapshot’s statements, each answered its own result', async () => {
      const { attempt, sent, recorded } = recordingRunner();
      const answers = await unitOfWork(attempt, async (session) => {
        const alone = await session.read('count', [['SELECT 1', [1]]]);
        session.beginSnapshot();
        const page = await one(session, 'page', ['SELECT 2', []]);
        return [
          alone,
          page,
          await session.read(
            'count+seats',
            [
              ['SELECT 3', [3]],
              ['SELECT 4', [4, 4]],
            ],
            { last: true },
          ),
        ];
      });
      expect(sent).toEqual(['SELECT 1', `${begin};\nSELECT 2`, `SELECT 3;\nSELECT 4;\n${end}`]);
      expect(answers).toEqual([
        ['result of SELECT 1'],
        'result of SELECT 2',
        ['result of SELECT 3', 'result of SELECT 4'],
      ]);
      expect(recorded.at(-1)).toEqual([3, 4, 4]);
    });

    it('sends them one at a time to the embedded database, which takes one statement at a time', async () => {
      const { attempt, sent } = recordingRunner(undefined, EMBEDDED_CATALOG);
      const answers = await unitOfWork(attempt, (session) =>
        session.read('count+seats', [
          ['SELECT 3', [3]],
          ['SELECT 4', [4]],
        ]),
      );
      expect(sent).toEqual(['SELECT 3', 'SELECT 4']);
      expect(answers).toEqual(['result of SELECT 3', 'result of SELECT 4']);
    });

    it('sends nothing for a snapshot asked for before no statement, nor around work that asked for none', async () => {
      const asked = recordingRunner();
      await expect(
        unitOfWork(asked.attempt, (session) => Promise.resolve(session.beginSnapshot())),
      ).resolves.toBeUndefined();
      expect(asked.sent).toEqual([]);

      const none = recordingRunner();
      await expect(
        unitOfWork(none.attempt, (session) => one(session, 'page', ['SELECT 1', []], { last: true })),
      ).resolves.toBe('result of SELECT 1');
      expect(none.sent).toEqual(['SELECT 1']);
    });
  });
});
