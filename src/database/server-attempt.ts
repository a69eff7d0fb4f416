import type { QueryRunner } from 'typeorm';
import { DatabaseUnavailableError, isDatabaseUnavailable } from './database-errors';
import type { DatabaseServer } from './database-server';
import type { GtidDialect, ReplicationPosition } from './gtid';
import type { RequestDeadline } from './request-deadline';
import type { ServerCatalog } from './server-catalog';

/**
 * When a statement is given up on its server (docs/API.md §11): a multiple of
 * the server's own recent p99, never below a floor that ordinary jitter
 * stays under, never beyond a share of the budget. A check sent then gets
 * half as long again to be answered, so with the default 2 s deadline a hung
 * server costs a request at most 750 ms, and the retry has the rest.
 */
const GIVE_UP = { multipleOfP99: 5, floorMs: 100, shareOfBudget: 1 / 4 } as const;

export function giveUpAfterMs(p99Ms: number | undefined, budgetMs: number): number {
  const ceiling = budgetMs * GIVE_UP.shareOfBudget;
  if (p99Ms === undefined) return ceiling;
  return Math.min(ceiling, Math.max(GIVE_UP.floorMs, GIVE_UP.multipleOfP99 * p99Ms));
}

/**
 * How a session begins and ends a snapshot that several statements read (ServerAttempt.beginSnapshot): each sent in
 * the same round trip as a statement of the request's own, the one before it and the one after it.
 */
export const SNAPSHOT_STATEMENTS = {
  begin: 'START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY',
  end: 'COMMIT',
} as const;

/** Where a session's snapshot stands: none asked for, asked for and begun with the next statement, or held. */
type SnapshotState = 'none' | 'asked' | 'held';

/** MySQL waits forever on a timeout of 0: the shortest wait sent is a millisecond. */
const MIN_WAIT_S = 0.001;

/** What separates the statements sent in one round trip. */
export const STATEMENT_SEPARATOR = ';\n';

/** A statement's text and the values bound to its markers. */
export type Statement = readonly [sql: string, parameters: readonly unknown[]];

/** The connection TypeORM's MySQL query runner holds once its first statement is sent. */
interface HeldConnection {
  databaseConnection?: { threadId: number | null; destroy(): void };
}

/** A statement given up because its server has answered nothing for far longer than its statements take. */
export class ServerNotAnsweringError extends DatabaseUnavailableError {
  constructor(readonly why: string) {
    super(new Error(why));
  }
}

/**
 * One attempt of a request on one server: its connection, its deadline,
 * and the statements it sends there, each timed into the server's
 * StatementTimings. An attempt that may give up (there is another server to
 * retry on) watches each statement: past the server's give-up time, with
 * nothing at all heard from that server for half that time and no answer to
 * a check sent then within that time either, the statement is abandoned (its
 * connection closed, its thread killed later) and the attempt fails as the
 * server's failure, which the router retries elsewhere.
 */
export class ServerAttempt {
  /**
   * @param cancelled A reader that may stop wanting the answers (an export whose client went away): once it
   *   fires, the statement running is stopped on the server and no further one is sent.
   * @param behindSeconds How far behind the server is, when routing chose a replica behind (ReadSession).
   */
  constructor(
    readonly runner: QueryRunner,
    readonly deadline: RequestDeadline,
    private readonly server: DatabaseServer,
    private readonly mayGiveUp: boolean,
    private readonly cancelled?: AbortSignal,
    public behindSeconds?: number,
  ) {}

  get catalog(): ServerCatalog {
    return this.server.catalog;
  }

  private snapshot: SnapshotState = 'none';

  /** Runs the request's work on this attempt, and ends the snapshot it began, if any, before its connection goes back. */
  async run<T>(work: (session: ServerAttempt) => Promise<T>): Promise<T> {
    try {
      return await work(this);
    } finally {
      if (this.snapshot === 'held') await this.endSnapshot();
      this.snapshot = 'none';
    }
  }

  /**
   * The statements sent from here on read one snapshot of the server's data, as of the first of them (a read-only
   * transaction at the servers' REPEATABLE READ), until the attempt's work ends (docs/adr/0020). The transaction
   * begins in the next statement's round trip.
   */
  beginSnapshot(): void {
    if (this.snapshot === 'none') this.snapshot = 'asked';
  }

  /** One statement, as `queries` sends it; alone in its round trip when no snapshot is asked for or held. */
  async query<T>(sql: string, parameters: unknown[], options: { last?: boolean } = {}): Promise<T> {
    if (this.snapshot === 'none') return this.statement(() => this.runner.query(sql, parameters) as Promise<T>);
    const [result] = await this.queries<[T]>([[sql, parameters]], options);
    return result;
  }

  /**
   * Sends statements in one round trip through `statement`, with the snapshot's beginning before them when one was
   * asked for, and its end after them when `last` says the work sends nothing more here: a round trip costs this
   * process and the server more than the statements' text (docs/adr/0022). The embedded database takes one
   * statement at a time, and gets them one after the other. Each statement's result, in order.
   */
  async queries<T extends unknown[]>(statements: readonly Statement[], { last = false } = {}): Promise<T> {
    if (this.catalog.embedded) {
      const results: unknown[] = [];
      for (const [sql, parameters] of statements) {
        results.push(await this.statement(() => this.runner.query(sql, [...parameters])));
      }
      return results as T;
    }
    const begins = this.snapshot === 'asked';
    // Held from the moment it is sent: whether a failed round trip began it is unknown, and COMMIT ends none harmlessly.
    if (begins) this.snapshot = 'held';
    const ends = last && this.snapshot === 'held';
    const sent = [
      ...(begins ? [SNAPSHOT_STATEMENTS.begin] : []),
      ...statements.map(([sql]) => sql),
      ...(ends ? [SNAPSHOT_STATEMENTS.end] : []),
    ];
    const parameters = statements.flatMap(([, values]) => values);
    const answered = await this.statement(
      () => this.runner.query(sent.join(STATEMENT_SEPARATOR), parameters) as Promise<unknown>,
    );
    if (ends) this.snapshot = 'none';
    // One statement is answered with its result, several with a result each.
    const results = sent.length === 1 ? [answered] : (answered as unknown[]);
    return results.slice(begins ? 1 : 0, (begins ? 1 : 0) + statements.length) as T;
  }

  /**
   * Sent whatever the deadline says: a pooled connection left inside the transaction would read this snapshot for
   * every later request. One that cannot end it (stopped, abandoned) is closed rather than given back.
   */
  private async endSnapshot(): Promise<void> {
    try {
      await this.runner.query(SNAPSHOT_STATEMENTS.end);
    } catch {
      (this.runner as unknown as HeldConnection).databaseConnection?.destroy();
    }
  }

  /**
   * docs/API.md §19: waits on this connection, at most `boundMs` and never past the deadline, until the server has
   * applied `position`; true once it has. Both servers answer 0 then, and differ on a timeout (GtidDialect.reached).
   */
  async waitFor(dialect: GtidDialect, position: ReplicationPosition, boundMs: number): Promise<boolean> {
    const seconds = Math.max(MIN_WAIT_S, Math.min(boundMs, this.deadline.remainingMs()) / 1000);
    const [row] = await this.statement(
      () => this.runner.query(dialect.waitStatement, [position.text, seconds]) as Promise<{ waited: unknown }[]>,
    );
    return dialect.reached(row?.waited);
  }

  async statement<T>(execute: () => Promise<T>): Promise<T> {
    this.cancelled?.throwIfAborted();
    if (!this.cancelled) return this.watched(execute);
    let interrupted: HeldConnection['databaseConnection'];
    const stop = () => {
      interrupted = (this.runner as unknown as HeldConnection).databaseConnection;
      if (typeof interrupted?.threadId === 'number') void this.server.interrupt(interrupted.threadId);
    };
    this.cancelled.addEventListener('abort', stop, { once: true });
    try {
      return await this.watched(execute);
    } finally {
      this.cancelled.removeEventListener('abort', stop);
      // KILL QUERY names a thread, not a statement: arriving as this one ended, it would stop whatever the connection
      // ran next for another request. The connection is closed instead of going back to the pool.
      interrupted?.destroy();
    }
  }

  private async watched<T>(execute: () => Promise<T>): Promise<T> {
    this.deadline.check();
    // Marked down while this request waited for its turn there: no point sending it what would hang too.
    if (this.mayGiveUp && !this.server.health.answering) {
      throw new ServerNotAnsweringError(`${this.server.name} stopped answering before the statement was sent`);
    }
    const { timings } = this.server;
    const sent = timings.sent();
    const running = execute().then(
      (result) => {
        timings.answered(sent);
        return result;
      },
      (error: unknown) => {
        if (isDatabaseUnavailable(error)) timings.unanswered(sent);
        else timings.answered(sent);
        throw error;
      },
    );
    if (!this.mayGiveUp) return running;

    const limitMs = Math.min(giveUpAfterMs(timings.p99(), this.deadline.budgetMs), this.deadline.remainingMs() / 2);
    // A server answering others is slow, not hung: given up only once it has also been silent for half that time.
    const silenceMs = limitMs / 2;
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const givenUp = new Promise<never>((_, reject) => {
      const giveUp = () => {
        timings.unanswered(sent);
        // Its outcome is no longer anyone's: the attempt has failed without it.
        running.catch(() => undefined);
        const { databaseConnection } = this.runner as unknown as HeldConnection;
        if (databaseConnection) this.server.abandon(databaseConnection);
        reject(
          new ServerNotAnsweringError(
            `nothing answered within ${Math.round(limitMs)} ms, nor a check within ${Math.round(silenceMs)} ms`,
          ),
        );
      };
      const judge = () => {
        const silentForMs = timings.silentForMs();
        if (silentForMs < silenceMs) {
          // Looked at again when the silence would be long enough, while a retry still has most of the budget.
          if (this.deadline.remainingMs() > this.deadline.budgetMs / 2)
            timer = setTimeout(judge, silenceMs - silentForMs);
          return;
        }
        // Silent perhaps only because nothing else is asked of it (one client, a quiet hour): asked directly. A
        // server that answers is running, and this statement is slow by its shape, which no retry would cure.
        void this.server.answersWithin(silenceMs).then((answers) => {
          if (!answers && !settled) giveUp();
        });
      };
      timer = setTimeout(judge, limitMs);
    });
    try {
      return await Promise.race([running, givenUp]);
    } finally {
      settled = true;
      clearTimeout(timer);
    }
  }
}
