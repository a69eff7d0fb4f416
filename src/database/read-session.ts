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

  async query<T>(kind: StatementKind, statement: Statement, options: LastOnConnection = {}): Promise<T> {
    const [result] = await this.queries<[T]>(kind, [statement], options);
    return result;
  }

  /** Statements in one round trip (docs/adr/0022), between the snapshot's beginning and, when `last`, its end. */
  async queries<T extends unknown[]>(
    kind: StatementKind,
    statements: readonly Statement[],
    { last = false }: LastOnConnection = {},
  ): Promise<T> {
    const ended = this.options.observer?.started(kind, this.server.name);
    try {
      const results = await (this.catalog.embedded ? this.oneByOne(statements) : this.inOneRoundTrip(statements, last));
      ended?.();
      return results as T;
    } catch (error) {
      ended?.(error);
      throw error;
    }
  }

  private async oneByOne(statements: readonly Statement[]): Promise<unknown[]> {
    const results: unknown[] = [];
    for (const [sql, parameters] of statements) results.push(await this.send(sql, parameters));
    return results;
  }

  private async inOneRoundTrip(statements: readonly Statement[], last: boolean): Promise<unknown[]> {
    const begins = this.snapshot === 'asked';
    // Held once sent: whether a failed round trip began it is unknown, and a COMMIT that ends none is harmless.
    if (begins) this.snapshot = 'held';
    const ends = last && this.snapshot === 'held';
    if (statements.length === 1 && !begins && !ends) return [await this.send(...statements[0])];
    const sent = [
      ...(begins ? [SNAPSHOT_STATEMENTS.begin] : []),
      ...statements.map(([sql]) => sql),
      ...(ends ? [SNAPSHOT_STATEMENTS.end] : []),
    ];
    const answered = await this.send<unknown>(
      sent.join(STATEMENT_SEPARATOR),
      statements.flatMap(([, values]) => values),
    );
    if (ends) this.snapshot = 'none';
    const results = sent.length === 1 ? [answered] : (answered as unknown[]);
    return results.slice(begins ? 1 : 0, (begins ? 1 : 0) + statements.length);
  }

  /** Waits on this connection, up to `boundMs` and the deadline, until the server has applied `position`. */
  async waitFor(dialect: GtidDialect, position: ReplicationPosition, boundMs: number): Promise<boolean> {
    const seconds = Math.max(MIN_WAIT_S, Math.min(boundMs, this.deadline.remainingMs()) / 1000);
    const [row] = await this.send<{ waited: unknown }[]>(dialect.waitStatement, [position.text, seconds]);
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

  private async send<T>(sql: string, parameters: readonly unknown[]): Promise<T> {
    const { cancelled, mayGiveUp } = this.options;
    cancelled?.throwIfAborted();
    this.deadline.check();
    if (mayGiveUp && !this.server.health.answering) {
      throw new ServerNotAnsweringError(`${this.server.name} stopped answering before the statement was sent`);
    }
    let interrupted: HeldConnection['databaseConnection'];
    const interrupt = () => {
      interrupted = (this.runner as unknown as HeldConnection).databaseConnection;
      if (typeof interrupted?.threadId === 'number') void this.server.interrupt(interrupted.threadId);
    };
    cancelled?.addEventListener('abort', interrupt, { once: true });
    const { timings } = this.server;
    const sent = timings.sent();
    const running = (this.runner.query(sql, parameters as unknown[]) as Promise<T>).then(
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
    try {
      return await (mayGiveUp ? this.unlessSilent(running, sent) : running);
    } finally {
      cancelled?.removeEventListener('abort', interrupt);
      // KILL QUERY names a thread, not a statement: the connection is closed rather than reused by another request.
      interrupted?.destroy();
    }
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
