import { Logger } from '@nestjs/common';
import type { RowDataPacket } from 'mysql2/promise';
import type { DataSource } from 'typeorm';
import type { Clock } from '../common/time/clock';
import type { DatabaseConfig } from '../config/database.config';
import { DatabaseAdmission } from './database-admission';
import { reasonOf } from './database-errors';
import { contains, union, type AppliedTransactions } from './gtid';
import { EMBEDDED_CATALOG, UNKNOWN_CATALOG, type ServerCatalog } from './server-catalog';
import { SideConnection } from './side-connection';
import { serverStateOf, type ServerHealth, type ServerState } from './server-state';
import { StatementTimings } from './statement-timings';

/** How servers are named in metrics, traces and logs: `replica-N` in DB_REPLICAS order. */
export type ServerName = 'primary' | `replica-${number}`;

/** KILL of a thread that has already ended. */
const ER_NO_SUCH_THREAD = 1094;

/** A new session asks which server an address reaches this often: each costs about 1.5 ms of CPU. */
const RESOLVE_INTERVAL_MS = 2000;

/** One database server: its pool and admission, its health, and a connection of its own for the checks. */
export class DatabaseServer {
  readonly admission: DatabaseAdmission;
  readonly timings: StatementTimings;
  private abandonedThreads: number[] = [];
  private current: ServerHealth;
  /** When a request last found this server failing; a check started before that cannot clear it. */
  private failedAt = Number.NEGATIVE_INFINITY;
  private loggedState?: ServerState;
  private readonly probe: SideConnection;
  private readonly positionConnection: SideConnection;
  /** What waits on this replica saw it apply since it was last found not replicating. */
  private confirmed?: AppliedTransactions;
  // Logged under the context operators know these lines by (docs/OPERATIONS.md).
  private readonly logger = new Logger('ReadRouter');
  private readonly maxLagSeconds: number;
  /** When the health now held was recorded: a replica's lag grows from there while it is not caught up. */
  private checkedAt: number;
  private held: ServerCatalog;
  /** Whether the service follows it as the primary now; only DatabaseServers changes it. */
  isPrimary: boolean;
  /** The `@@server_id` it last reported, so that replicas still naming it are known to follow a former primary. */
  knownServerId?: number;
  /** Which physical server last answered at its address (`RoleReport.identity`). */
  knownIdentity?: string;
  /** How often another server came to answer at its address: a change of role too. */
  addressMoves = 0;
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
    this.probe = new SideConnection(dataSource);
    this.positionConnection = new SideConnection(dataSource);
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

  /** At most how far behind a replica's data is now: its lag when last checked plus the time since. */
  behindSeconds(): number | undefined {
    const { lagSeconds } = this.current;
    if (this.isPrimary || lagSeconds === undefined) return undefined;
    return lagSeconds + Math.max(0, this.clock.now() - this.checkedAt) / 1000;
  }

  recordCheck(health: ServerHealth, checkStartedAt: number): void {
    const serverId = health.role?.serverId;
    if (serverId !== undefined && this.knownServerId !== undefined && serverId !== this.knownServerId) {
      this.logger.warn(
        `${this.name}: another server answers at its address (server ${this.knownServerId}, now ${serverId}): its connections are replaced`,
      );
      this.admission.retireConnections();
      this.positionConnection.close();
      this.confirmed = undefined;
      this.addressMoves += 1;
    }
    this.knownServerId = serverId ?? this.knownServerId;
    this.knownIdentity = health.role?.identity ?? this.knownIdentity;
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

  /** Asks a new session which server the address reaches: an address may move without cutting sessions. */
  resolveAddress(moved: () => void): void {
    if (this.resolving || !this.isMysql || !this.current.answering || this.knownServerId === undefined) return;
    if (this.clock.now() - this.resolvedAt < RESOLVE_INTERVAL_MS) return;
    this.resolvedAt = this.clock.now();
    this.resolving = true;
    const fresh = new SideConnection(this.dataSource);
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

  /** Whether a new session found another server at the address; if so, the check's connection is replaced. */
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

  /** A variable, read on a connection of its own: it waits neither behind requests nor behind a check. */
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

  recordApplied(target: AppliedTransactions): void {
    this.confirmed = this.confirmed ? union(this.confirmed, target) : target;
  }

  /** Whether the server answers a check within `withinMs`: if so, a slow statement is slow, not the server hung. */
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

  /** Stops a statement no reader wants (KILL QUERY); the reader closes that connection rather than pool it. */
  async interrupt(threadId: number): Promise<void> {
    try {
      await this.check(`KILL QUERY ${threadId}`);
    } catch (error) {
      if ((error as { errno?: number }).errno === ER_NO_SUCH_THREAD) return;
      this.logger.warn(`Could not stop a statement no longer wanted on ${this.name}: ${reasonOf(error)}`);
    }
  }

  /** A statement given up: its connection is closed now, its thread killed once the server answers again. */
  abandon(connection: { threadId: number | null; destroy(): void }): void {
    if (connection.threadId !== null) this.abandonedThreads.push(connection.threadId);
    connection.destroy();
  }

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
    const { state, detail } = serverStateOf({
      answering,
      lagSeconds,
      problem,
      isPrimary: this.isPrimary,
      healthyReplica: this.isHealthyReplica(),
      maxLagSeconds: this.maxLagSeconds,
    });
    if (this.loggedState === state) return;
    this.loggedState = state;
    if (state === 'healthy' || state === 'up') this.logger.log(`${this.name}: ${detail}`);
    else this.logger.warn(`${this.name}: ${detail}`);
  }
}
