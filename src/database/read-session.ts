import type { QueryRunner } from 'typeorm';
import { DatabaseUnavailableError, isDatabaseUnavailable } from './database-errors';
import type { DatabaseServer, ServerName } from './database-server';
import type { GtidDialect, ReplicationPosition } from './gtid';
import type { RequestDeadline } from './request-deadline';
import type { ServerCatalog } from './server-catalog';
import type { Sent } from './statement-timings';

export type Statement = readonly [sql: string, parameters: readonly unknown[]];

/** What a listing statement reads, as its metrics and traces name it. */
export type StatementKind = 'page' | 'count' | 'seats' | 'count+seats';

/** Told of each listing statement as it is sent; the function it answers is called once the statement ends. */
export interface StatementObserver {
  started(kind: StatementKind, server: ServerName): (error?: unknown) => void;
}

/** The provider told of every listing statement: metrics and traces live above the database layer. */
export const STATEMENT_OBSERVER = Symbol('STATEMENT_OBSERVER');

/** `last`: the work sends nothing more on this connection, so a snapshot it holds ends in the same round trip. */
export interface LastOnConnection {
  last?: boolean;
}

/** Sent in the round trips of the first and last statements that read one snapshot (docs/adr/0020). */
export const SNAPSHOT_STATEMENTS = {
  begin: 'START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY',
  end: 'COMMIT',
} as const;

export const STATEMENT_SEPARATOR = ';\n';

/** One round trip's text and values, and which of its results are the statements' own. */
interface RoundTrip {
  sql: string;
  parameters: readonly unknown[];
  endsSnapshot?: boolean;
  /** Where the statements' results start among the round trip's, and how many; none: the answer is the one's own. */
  results?: { from: number; count: number };
}

const oneStatement = (sql: string, parameters: readonly unknown[]): RoundTrip => ({ sql, parameters });

/** MySQL waits forever on a timeout of 0. */
const MIN_WAIT_S = 0.001;

/** Give-up time: 5 × the server's p99, at least 100 ms, at most a quarter of the budget. */
const GIVE_UP = { multipleOfP99: 5, floorMs: 100, shareOfBudget: 1 / 4 } as const;

export function giveUpAfterMs(p99Ms: number | undefined, budgetMs: number): number {
  const ceiling = budgetMs * GIVE_UP.shareOfBudget;
  if (p99Ms === undefined) return ceiling;
  return Math.min(ceiling, Math.max(GIVE_UP.floorMs, GIVE_UP.multipleOfP99 * p99Ms));
}

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

/** How the session's work reads: an attempt that may give up (another server can retry), a cancellable export. */
export interface SessionOptions {
  mayGiveUp?: boolean;
  cancelled?: AbortSignal;
  /** How far behind the server is, when routing chose a replica behind. */
  behindSeconds?: number;
  observer?: StatementObserver;
}

/** One unit of work's connection to one server and its deadline. */
export class ReadSession {
  private snapshot: 'none' | 'asked' | 'held' = 'none';
  private interrupted?: HeldConnection['databaseConnection'];
  behindSeconds?: number;

  constructor(
    readonly runner: QueryRunner,
    readonly deadline: RequestDeadline,
    private readonly server: DatabaseServer,
    private readonly options: SessionOptions = {},
  ) {
    this.behindSeconds = options.behindSeconds;
  }

  get catalog(): ServerCatalog {
    return this.server.catalog;
  }

  /** The statements from the next one on read one snapshot (a read-only transaction) until the work ends. */
  beginSnapshot(): void {
    if (this.snapshot === 'none') this.snapshot = 'asked';
  }

  /** Statements in one round trip (docs/adr/0022), between the snapshot's beginning and, when `last`, its end; the
   * embedded database runs them one at a time. `kind` names them to the observer; a freshness check has none. */
  async read<T extends unknown[]>(
    kind: StatementKind | undefined,
    statements: readonly Statement[],
    { last = false }: LastOnConnection = {},
  ): Promise<T> {
    const ended = kind && this.options.observer?.started(kind, this.server.name);
    const trips = this.roundTrips(statements, last);
    const results: unknown[] = [];
    try {
      for (const trip of trips) {
        const { cancelled, mayGiveUp } = this.options;
        cancelled?.throwIfAborted();
        this.deadline.check();
        if (mayGiveUp && !this.server.health.answering) {
          throw new ServerNotAnsweringError(`${this.server.name} stopped answering before the statement was sent`);
        }
        const interrupt = () => this.interrupt();
        cancelled?.addEventListener('abort', interrupt, { once: true });
        const sent = this.server.timings.sent();
        try {
          const running = this.timed(
            this.runner.query(trip.sql, trip.parameters as unknown[]) as Promise<unknown>,
            sent,
          );
          const answered = await (mayGiveUp ? this.unlessSilent(running, sent) : running);
          const own = trip.results;
          results.push(...(own ? (answered as unknown[]).slice(own.from, own.from + own.count) : [answered]));
        } finally {
          cancelled?.removeEventListener('abort', interrupt);
          // KILL QUERY names a thread, not a statement: the connection is closed rather than reused by another request.
          this.interrupted?.destroy();
          this.interrupted = undefined;
        }
      }
      if (trips.at(-1)?.endsSnapshot) this.snapshot = 'none';
      ended?.();
      return results as T;
    } catch (error) {
      ended?.(error);
      throw error;
    }
  }

  /** How the statements are sent: one round trip with the snapshot's statements around them, or one by one. */
  private roundTrips(statements: readonly Statement[], last: boolean): RoundTrip[] {
    if (this.catalog.embedded) return statements.map(([sql, parameters]) => oneStatement(sql, parameters));
    const begins = this.snapshot === 'asked';
    // Held once sent: whether a failed round trip began it is unknown, and a COMMIT that ends none is harmless.
    if (begins) this.snapshot = 'held';
    const ends = last && this.snapshot === 'held';
    if (statements.length === 1 && !begins && !ends) return [oneStatement(...statements[0])];
    const sent = [
      ...(begins ? [SNAPSHOT_STATEMENTS.begin] : []),
      ...statements.map(([sql]) => sql),
      ...(ends ? [SNAPSHOT_STATEMENTS.end] : []),
    ];
    return [
      {
        sql: sent.join(STATEMENT_SEPARATOR),
        parameters: statements.flatMap(([, values]) => values),
        endsSnapshot: ends,
        results: sent.length === 1 ? undefined : { from: begins ? 1 : 0, count: statements.length },
      },
    ];
  }

  /** Waits on this connection, up to `boundMs` and the deadline, until the server has applied `position`. */
  async waitFor(dialect: GtidDialect, position: ReplicationPosition, boundMs: number): Promise<boolean> {
    const seconds = Math.max(MIN_WAIT_S, Math.min(boundMs, this.deadline.remainingMs()) / 1000);
    const [[row]] = await this.read<[{ waited: unknown }[]]>(undefined, [
      [dialect.waitStatement, [position.text, seconds]],
    ]);
    return dialect.reached(row?.waited);
  }

  /** Ends the snapshot whatever the deadline says: a pooled connection left in it would read it for later requests. */
  async end(): Promise<void> {
    if (this.snapshot !== 'held') return;
    this.snapshot = 'none';
    try {
      await this.runner.query(SNAPSHOT_STATEMENTS.end);
    } catch {
      (this.runner as unknown as HeldConnection).databaseConnection?.destroy();
    }
  }

  /** The statement's time, told to the server's timings whether it is answered or not. */
  private timed<T>(running: Promise<T>, sent: Sent): Promise<T> {
    const { timings } = this.server;
    return running.then(
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
  }

  /** A cancelled export's statement is stopped on the server, and its connection closed once it ends. */
  private interrupt(): void {
    this.interrupted = (this.runner as unknown as HeldConnection).databaseConnection;
    if (typeof this.interrupted?.threadId === 'number') void this.server.interrupt(this.interrupted.threadId);
  }

  /** The statement's answer, unless its server is silent past its give-up time and a check then goes unanswered. */
  private async unlessSilent<T>(running: Promise<T>, sent: Sent): Promise<T> {
    const { timings } = this.server;
    const limitMs = Math.min(giveUpAfterMs(timings.p99(), this.deadline.budgetMs), this.deadline.remainingMs() / 2);
    const silenceMs = limitMs / 2;
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const givenUp = new Promise<never>((_, reject) => {
      const giveUp = () => {
        timings.unanswered(sent);
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
          // A server answering others is slow, not hung; judged again while a retry still has half the budget.
          if (this.deadline.remainingMs() > this.deadline.budgetMs / 2)
            timer = setTimeout(judge, silenceMs - silentForMs);
          return;
        }
        // Silent perhaps only because nothing else is asked of it: a server that answers a check is running.
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
