import type { Clock } from '../common/time/clock';

/** How many of a server's latest statement times its p99 is taken over. */
const WINDOW = 256;
/** Fewer statements than this say too little to judge a server by its own times: the ceiling applies. */
const MIN_SAMPLES = 32;
/** The p99 is sorted anew only every so many statements: it moves slowly, and a sort per statement is waste. */
const P99_EVERY = 16;
/** What "the database is doing now" is taken over: its latest statements, not a long average. */
const RECENT = 16;

export interface Sent {
  readonly at: number;
}

export interface ServerEvidence {
  /** How long the server has left a statement unanswered: the oldest waiting, or one unanswered since its answer. */
  oldestWaitingMs: number;
  /** Since this server last answered anything: a statement, a failed statement, a health check. */
  sinceLastAnswerMs: number;
  /** The median of its latest statements' times, as this process measured them. */
  recentMs: number;
}

/** A server's statement times as the client sees them: whether a late request waited on the server or this process. */
export class StatementTimings {
  private readonly durations = new Float64Array(WINDOW);
  private recorded = 0;
  private p99Ms?: number;
  private readonly waiting = new Set<Sent>();
  private lastAnswerAt = Number.NEGATIVE_INFINITY;
  /** When the oldest statement that ended unanswered since the last answer was sent. */
  private unansweredSince?: number;

  constructor(private readonly clock: Clock) {}

  sent(): Sent {
    const statement = { at: this.clock.now() };
    this.waiting.add(statement);
    return statement;
  }

  /** The server answered it, with rows or with an error of its own: either way it is answering. */
  answered(statement: Sent): void {
    if (!this.waiting.delete(statement)) return;
    const now = this.clock.now();
    this.durations[this.recorded % WINDOW] = now - statement.at;
    this.recorded += 1;
    this.lastAnswerAt = now;
    this.unansweredSince = undefined;
    if (this.recorded % P99_EVERY === 0) this.p99Ms = undefined;
  }

  /** No answer came: the connection failed, or the statement was given up. Its time says nothing of the server's pace. */
  unanswered(statement: Sent): void {
    if (!this.waiting.delete(statement)) return;
    // Left unanswered, unless the server answered something after it was sent: then it was not silent.
    if (this.lastAnswerAt > statement.at) return;
    this.unansweredSince = Math.min(this.unansweredSince ?? statement.at, statement.at);
  }

  /** Something other than a statement (a health check) got an answer from the server. */
  heardFrom(): void {
    this.lastAnswerAt = this.clock.now();
    this.unansweredSince = undefined;
  }

  silentForMs(): number {
    return this.clock.now() - this.lastAnswerAt;
  }

  /** The p99 of the latest statement times; undefined until there are enough of them. */
  p99(): number | undefined {
    const count = Math.min(this.recorded, WINDOW);
    if (count < MIN_SAMPLES) return undefined;
    if (this.p99Ms === undefined) {
      const sorted = this.durations.slice(0, count).sort();
      this.p99Ms = sorted[Math.min(count - 1, Math.floor(count * 0.99))];
    }
    return this.p99Ms;
  }

  evidence(): ServerEvidence {
    const now = this.clock.now();
    let oldestWaitingMs = this.unansweredSince === undefined ? 0 : now - this.unansweredSince;
    for (const statement of this.waiting) oldestWaitingMs = Math.max(oldestWaitingMs, now - statement.at);
    const count = Math.min(this.recorded, RECENT);
    const recent: number[] = [];
    for (let back = 1; back <= count; back += 1) recent.push(this.durations[(this.recorded - back) % WINDOW]);
    recent.sort((a, b) => a - b);
    return {
      oldestWaitingMs,
      sinceLastAnswerMs: now - this.lastAnswerAt,
      recentMs: count === 0 ? 0 : recent[Math.floor(count / 2)],
    };
  }
}
