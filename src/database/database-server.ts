import { Logger } from '@nestjs/common';
import type { RowDataPacket } from 'mysql2/promise';
import type { DataSource } from 'typeorm';
import type { Clock } from '../common/time/clock';
import type { DatabaseConfig } from '../config/database.config';
import { DatabaseAdmission } from './database-admission';
import { reasonOf } from './database-errors';
import { contains, union, type AppliedTransactions } from './gtid';
import type { GtidPosition } from './replication-lag';
import type { RoleReport } from './server-roles';
import { EMBEDDED_CATALOG, UNKNOWN_CATALOG, type ServerCatalog } from './server-catalog';
import { SideConnection, type ConnectionOptions } from './side-connection';
import { StatementTimings } from './statement-timings';

/** How servers are named in metrics, traces and logs (docs/API.md §12): `replica-N` in DB_REPLICAS order. */
export type ServerName = 'primary' | `replica-${number}`;

/** KILL of a thread that has already ended. */
const ER_NO_SUCH_THREAD = 1094;

/** What the last background check found about a server. */
export interface ServerHealth {
  answering: boolean;
  /** Replicas: both replication threads running. */
  replicating: boolean;
  /** Replicas: seconds behind the primary, when it could be told. */
  lagSeconds?: number;
  /** How far the server has applied the primary's transactions (MariaDB GTID). */
  position?: GtidPosition;
  /** Why it is not answering or not replicating, for the log. */
  problem?: string;
  /** What the server says of its own role (docs/API.md §20); the embedded database takes writes and has no id. */
  role?: Omit<RoleReport, 'name' | 'answering'>;
}

/**
 * How often a new session asks which server an address reaches: a connection costs the instance about 1.5 ms of CPU,
 * and a move found is checked at once, within the 3 s of docs/API.md §20.
 */
const RESOLVE_INTERVAL_MS = 2000;

type ServerState = 'up' | 'down' | 'healthy' | 'stopped' | 'lagging';

/**
 * One database server the listing can read from: its TypeORM DataSource (with
 * its own pool and admission), what is known of its health, and a connection
 * of its own for the background health checks, so that a check never waits
 * behind requests for a pooled connection and never runs on the request path.
 * Its health changes only through `recordCheck` and `markFailed`, and each
 * change of the state that routing sees is logged once.
 */
export class DatabaseServer {
  readonly admission: DatabaseAdmission;
  readonly timings: StatementTimings;
  /** Server threads of connections closed on statements given up: killed once the server answers again. */
  private abandonedThreads: number[] = [];
  private current: ServerHealth;
  /** When a request last found this server failing; a check started before that cannot clear it. */
  private failedAt = Number.NEGATIVE_INFINITY;
  private loggedState?: ServerState;
  private readonly probe = new SideConnection(() => this.dataSource.options as ConnectionOptions);
  private readonly positionConnection = new SideConnection(() => this.dataSource.options as ConnectionOptions);
  /** What waits on this replica saw it apply since it was last found not replicating. */
  private confirmed?: AppliedTransactions;
  // Logged under the context operators know these lines by (docs/OPERATIONS.md).
  private readonly logger = new Logger('ReadRouter');
  private readonly maxLagSeconds: number;
  /** When the health now held was recorded: a replica's lag grows from there while it is not caught up. */
  private checkedAt: number;
  private held: ServerCatalog;
  /** Whether the service follows it as the primary now (docs/API.md §20); only DatabaseServers changes it. */
  isPrimary: boolean;
  /** The `@@server_id` it last reported, so that replicas still naming it are known to follow a former primary. */
  knownServerId?: number;
  /** When a new session last asked which server is behind the address, whether one is asking, whether it found another. */
  private resolvedAt = Number.NEGATIVE_INFINITY;
  private resolving = false;
  private moved = false;
  /** The configured primary's pool is the application's DataSource, which Nest closes; a replica's is its own. */
  private readonly ownsPool: boolean;

  constructor(
    readonly name: ServerName,
    readonly dataSource: DataSource,
    config: DatabaseConfig,
    private readonly clock: Clock,
  ) {
    this.timings = new StatementTimings(clock);
    this.admission = new DatabaseAdmission(
      dataSource,
      config.type === 'mysql' ? config.poolSize : Number.POSITIVE_INFINITY,
      clock,
      this.timings,
    );
    this.maxLagSeconds = config.type === 'mysql' ? config.replicaMaxLagSeconds : 0;
    // Until a check says otherwise the primary is assumed to answer and a replica is not read from.
    this.isPrimary = name === 'primary';
    this.ownsPool = !this.isPrimary;
    this.current = { answering: this.isPrimary, replicating: false };
    this.checkedAt = clock.now();
    this.held = this.isMysql ? UNKNOWN_CATALOG : EMBEDDED_CATALOG;
  }

  /** What the server was last found to hold (indexes, table sizes); routing reads it for each request. */
  get catalog(): ServerCatalog {
    return this.held;
  }

  recordCatalog(catalog: ServerCatalog): void {
    this.held = catalog;
  }

  /** What it holds is no longer known (a statement named an index it lacks): read again at the next check. */
  forgetCatalog(): void {
    if (this.isMysql) this.held = UNKNOWN_CATALOG;
  }

  get health(): Readonly<ServerHealth> {
    return this.current;
  }

  /** A MySQL or MariaDB server, reached over the network; otherwise the embedded database, in this process. */
  get isMysql(): boolean {
    return this.dataSource.options.type === 'mysql';
  }

  /** The server answers and its pool is open: a request could read from it. */
  canRead(): boolean {
    return this.current.answering && this.dataSource.isInitialized;
  }

  /** A replica the listing reads from: it answers, replicates and is within DB_REPLICA_MAX_LAG_S of the primary. */
  isHealthyReplica(): boolean {
    const { replicating, lagSeconds } = this.current;
    return (
      !this.isPrimary && replicating && lagSeconds !== undefined && lagSeconds <= this.maxLagSeconds && this.canRead()
    );
  }

  /**
   * docs/API.md §18: at most how many seconds behind the primary this replica's data is now, as a client reading it
   * is told (`Data-Staleness`): its lag when last checked, plus the time since, since it may not have applied what
   * the primary took meanwhile. Undefined for the primary, and for a replica whose lag could not be told.
   */
  behindSeconds(): number | undefined {
    const { lagSeconds } = this.current;
    if (this.isPrimary || lagSeconds === undefined) return undefined;
    return lagSeconds + Math.max(0, this.clock.now() - this.checkedAt) / 1000;
  }

  /** What a background check that started at `checkStartedAt` found. */
  recordCheck(health: ServerHealth, checkStartedAt: number): void {
    const serverId = health.role?.serverId;
    if (serverId !== undefined && this.knownServerId !== undefined && serverId !== this.knownServerId) {
      this.logger.warn(
        `${this.name}: another server answers at its address (server ${this.knownServerId}, now ${serverId}): its connections are replaced`,
      );
      this.admission.retireConnections();
      this.positionConnection.close();
      this.confirmed = undefined;
    }
    this.knownServerId = serverId ?? this.knownServerId;
    // A check that started before a request found the server failing cannot declare it answering.
    if (health.answering && checkStartedAt < this.failedAt) return;
    // A replica that stopped, or came back (perhaps rebuilt), is known to hold only what the check read.
    if (!health.answering || !health.replicating) this.confirmed = undefined;
    this.current = health;
    this.checkedAt = this.clock.now();
    this.logState();
  }

  /** A request found the server failing: it is not read from until a later check finds it answering. */
  markFailed(reason: string): void {
    this.failedAt = this.clock.now();
    this.confirmed = undefined;
    if (!this.current.answering) return;
    this.current = { ...this.current, answering: false, problem: `failed during a request: ${reason}` };
    this.logState();
  }

  /**
   * docs/API.md §20: an address may move without cutting the sessions it carries (a proxy or virtual IP that routes
   * only new ones), and the check's session would go on reaching the old server. So every RESOLVE_INTERVAL_MS a
   * server that answers is asked its `@@server_id` on a new session too, beside the check rather than before it:
   * another than the check's means the address moved, and `moved` asks for a round at once (`takeMoved`).
   */
  resolveAddress(moved: () => void): void {
    if (this.resolving || !this.isMysql || !this.current.answering || this.knownServerId === undefined) return;
    if (this.clock.now() - this.resolvedAt < RESOLVE_INTERVAL_MS) return;
    this.resolvedAt = this.clock.now();
    this.resolving = true;
    const fresh = new SideConnection(() => this.dataSource.options as ConnectionOptions);
    fresh
      .query<RowDataPacket>('SELECT @@server_id AS id')
      .then(([row]) => {
        if (Number(row?.id) === this.knownServerId) return;
        this.moved = true;
        moved();
      })
      // A server that fails is the check's to find, on its own session.
      .catch(() => undefined)
      .finally(() => {
        fresh.close();
        this.resolving = false;
      });
  }

  /**
   * Whether a new session found another server behind the address since this was last asked; if so, the check's
   * connection is replaced, so that the round about to start reads the server there now. Asked between rounds only,
   * when no check statement is in flight on it.
   */
  takeMoved(): boolean {
    if (!this.moved) return false;
    this.moved = false;
    this.probe.close();
    return true;
  }

  /** Runs one statement of a health check; any failure closes the check's connection so the next one starts afresh. */
  async check<T extends RowDataPacket>(sql: string): Promise<T[]> {
    const rows = await this.probe.query<T>(sql);
    this.timings.heardFrom();
    return rows;
  }

  /**
   * docs/API.md §19: one statement that reads no table, on a connection of its own, so that a position read waits
   * neither behind requests for a pooled connection nor behind a health check.
   */
  async readVariable(sql: string): Promise<string> {
    const [row] = await this.positionConnection.query<RowDataPacket>(sql);
    this.timings.heardFrom();
    return String(Object.values(row ?? {})[0] ?? '');
  }

  /** Whether this replica is known to have applied `target`: by the last check, or by a wait that saw it. */
  hasApplied(target: AppliedTransactions): boolean {
    const { position } = this.current;
    if (position && contains({ flavour: 'mariadb', domains: position }, target)) return true;
    return this.confirmed !== undefined && contains(this.confirmed, target);
  }

  /** A wait on this replica saw it apply `target`. */
  recordApplied(target: AppliedTransactions): void {
    this.confirmed = this.confirmed ? union(this.confirmed, target) : target;
  }

  /**
   * Whether the server answers a trivial statement on the check connection within `withinMs`: a server that does
   * is running, whatever one statement of a request is taking, so that statement is slow, not the server hung.
   */
  async answersWithin(withinMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), withinMs);
    });
    try {
      return await Promise.race([
        this.check('SELECT 1').then(
          () => true,
          () => false,
        ),
        late,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Stops the statement a connection is running (KILL QUERY) for a reader
   * that no longer wants its answer, so that the server stops working on it
   * at once; the reader closes that connection rather than give it back.
   */
  async interrupt(threadId: number): Promise<void> {
    try {
      await this.check(`KILL QUERY ${threadId}`);
    } catch (error) {
      if ((error as { errno?: number }).errno === ER_NO_SUCH_THREAD) return;
      this.logger.warn(`Could not stop a statement no longer wanted on ${this.name}: ${reasonOf(error)}`);
    }
  }

  /**
   * A statement on this connection was given up (docs/API.md §11): the
   * connection is closed at once, so that it holds nothing here, and its
   * server thread is remembered, so that whatever it still runs is killed
   * once the server answers again.
   */
  abandon(connection: { threadId: number | null; destroy(): void }): void {
    if (connection.threadId !== null) this.abandonedThreads.push(connection.threadId);
    connection.destroy();
  }

  /** Kills the server threads of abandoned connections; run by the background check once the server answers. */
  async killAbandoned(): Promise<void> {
    const threads = this.abandonedThreads;
    this.abandonedThreads = [];
    for (const [index, thread] of threads.entries()) {
      try {
        await this.check(`KILL CONNECTION ${thread}`);
      } catch (error) {
        if ((error as { errno?: number }).errno === ER_NO_SUCH_THREAD) continue;
        // Not answering after all: the next check that finds it answering tries again.
        this.abandonedThreads.push(...threads.slice(index));
        return;
      }
    }
  }

  /** Opens the pool of a replica that could not be reached when the service started. */
  async open(): Promise<void> {
    if (!this.dataSource.isInitialized) await this.dataSource.initialize();
  }

  async close(): Promise<void> {
    this.probe.close();
    this.positionConnection.close();
    if (this.ownsPool && this.dataSource.isInitialized) await this.dataSource.destroy();
  }

  private logState(): void {
    const { answering, lagSeconds, problem } = this.current;
    let state: ServerState;
    let detail: string;
    if (!answering) {
      state = 'down';
      detail = `not answering (${problem}); not read from until it answers again`;
    } else if (this.isPrimary) {
      state = 'up';
      detail = 'answering';
    } else if (this.isHealthyReplica()) {
      state = 'healthy';
      detail = `healthy (${lagSeconds?.toFixed(1)} s behind); reads go to it`;
    } else if (problem) {
      state = 'stopped';
      detail = `answering but not replicating (${problem}); not read from`;
    } else {
      state = 'lagging';
      detail =
        lagSeconds === undefined
          ? 'lag unknown (the primary has not been seen); not read from'
          : `${lagSeconds.toFixed(1)} s behind, past DB_REPLICA_MAX_LAG_S=${this.maxLagSeconds}; not read from`;
    }
    if (this.loggedState === state) return;
    this.loggedState = state;
    if (state === 'healthy' || state === 'up') this.logger.log(`${this.name}: ${detail}`);
    else this.logger.warn(`${this.name}: ${detail}`);
  }
}
