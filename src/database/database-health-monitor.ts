import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { RowDataPacket } from 'mysql2/promise';
import { Clock } from '../common/time/clock';
import { reasonOf } from './database-errors';
import { performance } from 'node:perf_hooks';
import type { DatabaseServer, ServerName } from './database-server';
import type { ServerHealth } from './server-state';
import { DatabaseServers } from './database-servers';
import { ER_UNKNOWN_SYSTEM_VARIABLE, readAppliers, singleApplierWarning } from './replica-appliers';
import { parseGtidPosition, PrimaryTimeline, type GtidPosition } from './replication-lag';
import {
  MYSQL_IDENTITY,
  primaryVerdict,
  replicationOf,
  ROLE_STATEMENT,
  roleFrom,
  type ReplicaStatus,
  type RoleReport,
  type RoleRow,
} from './server-roles';
import {
  CATALOG_STATEMENT,
  catalogOf,
  ISOLATION_STATEMENT,
  isolationWarning,
  UNKNOWN_CATALOG,
  type CatalogRow,
  type IsolationRow,
} from './server-catalog';

/** Health is checked about once a second (docs/ARCHITECTURE.md, "Read routing"), whatever asks for it. */
export const CHECK_INTERVAL_MS = 1000;
/** What each server holds is read this often, and when it answers again: a rebuilt replica lacks its own indexes. */
const CATALOG_INTERVAL_MS = 30_000;
const CATALOG_RETRY_MS = 5000;
/** The primary's positions are remembered this long; a replica further behind is reported at least this stale. */
const TIMELINE_KEEP_MS = 10 * 60_000;
/** SHOW REPLICA STATUS without the SLAVE MONITOR privilege. */
const ER_SPECIFIC_ACCESS_DENIED = 1227;
const MISSING_GRANT = 'SHOW REPLICA STATUS is refused: the service user needs GRANT SLAVE MONITOR ON *.*';

interface ReplicaStatusRow extends ReplicaStatus, RowDataPacket {
  Seconds_Behind_Master?: number | null;
  Seconds_Behind_Source?: number | null;
  Last_IO_Error?: string;
  Last_SQL_Error?: string;
}

interface RoleRowPacket extends RoleRow, RowDataPacket {
  position?: string;
}

const reportOf = (server: DatabaseServer, health: ServerHealth): RoleReport => ({
  name: server.name,
  answering: health.answering,
  ...health.role,
  serverId: health.role?.serverId ?? server.knownServerId,
});

/** Told of every check: which server, and how long its statements took, in seconds. */
export type CheckListener = (server: ServerName, seconds: number) => void;

/** About once a second, off the request path: each server's answer, role, position and lag, recorded on it. */
@Injectable()
export class DatabaseHealthMonitor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly timeline = new PrimaryTimeline(TIMELINE_KEEP_MS);
  private timer?: NodeJS.Timeout;
  private round?: Promise<void>;
  private running = false;
  private soon = false;
  private stopped = false;
  /** Whether the servers know GTID positions (MariaDB); learned from the first check. */
  private gtid = true;
  private readonly listeners: CheckListener[] = [];
  /** When each server's catalog was last read; absent while it has not been, or since it stopped answering. */
  private readonly catalogReadAt = new Map<DatabaseServer, number>();
  // Logged under the context operators know these lines by (docs/OPERATIONS.md).
  private readonly logger = new Logger('ReadRouter');

  constructor(
    private readonly servers: DatabaseServers,
    private readonly clock: Clock,
  ) {}

  /** Metrics time the checks without the database layer knowing of them. */
  onCheck(listener: CheckListener): void {
    this.listeners.push(listener);
  }

  /** The first round runs before the service takes requests, so that routing and readiness start from what is true. */
  async onApplicationBootstrap(): Promise<void> {
    await this.checkAll();
    this.schedule();
  }

  /** Before the servers close: a round still running would reopen a replica's pool after it closed. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.round;
  }

  private schedule(): void {
    if (this.stopped) return;
    const delayMs = this.soon ? 0 : CHECK_INTERVAL_MS;
    this.soon = false;
    this.timer = setTimeout(() => {
      this.running = true;
      this.round = this.checkAll().finally(() => {
        this.running = false;
        this.schedule();
      });
    }, delayMs);
    // The checks alone must not keep the process alive.
    this.timer.unref();
  }

  /** A round now rather than at the next tick: a server was found behind an address that another answered before. */
  private checkSoon(): void {
    this.soon = true;
    // Before the first round is scheduled, or while a round runs, the next one is scheduled with it.
    if (this.running || this.timer === undefined) return;
    clearTimeout(this.timer);
    this.schedule();
  }

  /** The primary first (replicas are measured against it), then each replica, then which server is the primary. */
  private async checkAll(): Promise<void> {
    const started = this.clock.now();
    const { primary, replicas } = this.servers;
    const moved = this.servers.all.map((server) => server.takeMoved()).some(Boolean);
    for (const server of this.servers.all) server.resolveAddress(() => this.checkSoon());
    // A primary without replicas that answered requests needs no check, which made late requests in a burst blame it.
    const answeredRequests =
      !moved && replicas.length === 0 && primary.health.answering && primary.timings.silentForMs() < CHECK_INTERVAL_MS;
    if (answeredRequests) {
      await this.readCatalog(primary);
      return;
    }
    const checked = await this.timed(primary, () => this.checkPrimary(primary, replicas.length > 0));
    const found = await Promise.all(replicas.map((replica) => this.timed(replica, () => this.checkReplica(replica))));
    const verdict = primaryVerdict(
      reportOf(primary, checked.health),
      replicas.map((replica, index) => reportOf(replica, found[index])),
      this.servers.deposedIds,
    );
    let health = checked.health;
    if (!verdict.current && health.answering) {
      health = { answering: false, replicating: false, problem: verdict.why, role: health.role };
    } else if (verdict.current && checked.position) {
      this.timeline.record(checked.position, checked.at);
    }
    this.servers.recordVerdict(verdict);
    primary.recordCheck(await this.settled(primary, health), started);
    await Promise.all(
      replicas.map(async (replica, index) => {
        const { position } = found[index];
        const measured =
          this.gtid && position
            ? { ...found[index], lagSeconds: this.timeline.lagSeconds(position, Date.now()) }
            : found[index];
        replica.recordCheck(await this.settled(replica, measured), started);
      }),
    );
  }

  private async timed<T>(server: DatabaseServer, check: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await check();
    } finally {
      const seconds = (performance.now() - started) / 1000;
      for (const listener of this.listeners) listener(server.name, seconds);
    }
  }

  /** A server found answering first ends what statements given up there may still run, before it is read from again. */
  private async settled(server: DatabaseServer, health: ServerHealth): Promise<ServerHealth> {
    if (!health.answering) {
      this.catalogReadAt.delete(server);
      return health;
    }
    await server.killAbandoned();
    await this.readCatalog(server);
    return health;
  }

  /** Reads what the server holds when it is due; a failure leaves the last catalog, and the next round tries again. */
  private async readCatalog(server: DatabaseServer): Promise<void> {
    if (!server.isMysql) return;
    const readAt = this.catalogReadAt.get(server);
    // Not known (never read, forgotten, or the last read failed): read again soon, but not in every round.
    const intervalMs = server.catalog === UNKNOWN_CATALOG ? CATALOG_RETRY_MS : CATALOG_INTERVAL_MS;
    if (readAt !== undefined && this.clock.now() - readAt < intervalMs) return;
    this.catalogReadAt.set(server, this.clock.now());
    try {
      const isolation = await server.check<IsolationRow>(ISOLATION_STATEMENT);
      server.recordCatalog(catalogOf(await server.check<CatalogRow>(CATALOG_STATEMENT), isolation));
      const belowOneSnapshot = isolationWarning(server.name, isolation);
      if (belowOneSnapshot) this.logger.warn(belowOneSnapshot);
      if (!server.isPrimary) await this.warnOfSingleApplier(server);
    } catch {
      // The health check itself says whether the server answers; the catalog is read again later.
    }
  }

  /** A replica that applies with one thread falls behind a sale; said at start and at each read. */
  private async warnOfSingleApplier(replica: DatabaseServer): Promise<void> {
    const appliers = await readAppliers((sql) => replica.check(sql));
    const warning = appliers && singleApplierWarning(replica.name, appliers);
    if (warning) this.logger.warn(warning);
  }

  private async checkPrimary(
    primary: DatabaseServer,
    askRole: boolean,
  ): Promise<{ health: ServerHealth; position?: GtidPosition; at: number }> {
    const at = Date.now();
    try {
      if (!primary.isMysql) {
        // The embedded database lives in this process: it answers while it is open, and it is the one writable server.
        await primary.dataSource.query('SELECT 1');
        return { health: { answering: true, replicating: false, role: { writable: true, replicating: false } }, at };
      }
      const [row] = await primary.check<RoleRowPacket>(
        this.gtid ? `${ROLE_STATEMENT}, @@global.gtid_binlog_pos AS position` : ROLE_STATEMENT + MYSQL_IDENTITY,
      );
      const replication = askRole ? await this.replicationStatus(primary) : undefined;
      const health: ServerHealth = {
        answering: true,
        replicating: false,
        role: roleFrom(row, replication),
      };
      return { health, position: this.gtid ? parseGtidPosition(String(row.position ?? '')) : undefined, at };
    } catch (error) {
      // MySQL has no `@@gtid_binlog_pos` / `@@gtid_slave_pos`; there the replica's own estimate is used.
      if ((error as { errno?: number }).errno === ER_UNKNOWN_SYSTEM_VARIABLE && this.gtid) {
        this.gtid = false;
        return this.checkPrimary(primary, askRole);
      }
      return { health: { answering: false, replicating: false, problem: reasonOf(error) }, at };
    }
  }

  private async checkReplica(replica: DatabaseServer): Promise<ServerHealth> {
    try {
      const replication = await this.replicationStatus(replica);
      await replica.open();
      const [row] = await replica.check<RoleRowPacket>(
        this.gtid ? `${ROLE_STATEMENT}, @@global.gtid_slave_pos AS position` : ROLE_STATEMENT + MYSQL_IDENTITY,
      );
      const role = roleFrom(row, replication);
      if (!this.gtid) return { answering: true, ...replication, role };
      return {
        answering: true,
        replicating: replication.replicating,
        problem: replication.problem,
        position: parseGtidPosition(String(row.position ?? '')),
        role,
      };
    } catch (error) {
      return { answering: false, replicating: false, problem: reasonOf(error) };
    }
  }

  /** Whether both replication threads run, from SHOW REPLICA STATUS (and, on MySQL, the replica's own lag). */
  private async replicationStatus(
    replica: DatabaseServer,
  ): Promise<Pick<ServerHealth, 'replicating' | 'problem' | 'lagSeconds'> & { follows?: number }> {
    let status: ReplicaStatusRow | undefined;
    try {
      [status] = await replica.check<ReplicaStatusRow>('SHOW REPLICA STATUS');
    } catch (error) {
      if ((error as { errno?: number }).errno === ER_SPECIFIC_ACCESS_DENIED) {
        return { replicating: false, problem: MISSING_GRANT };
      }
      throw error;
    }
    if (!status) return { replicating: false, problem: 'not a replica: SHOW REPLICA STATUS is empty' };
    const { io, sql, replicating, follows } = replicationOf(status);
    const lastError = status.Last_SQL_Error || status.Last_IO_Error;
    return {
      replicating,
      problem: replicating ? undefined : `replication threads IO=${io} SQL=${sql}${lastError ? `: ${lastError}` : ''}`,
      // NULL while a thread is stopped or reconnecting: unknown, never 0.
      lagSeconds: status.Seconds_Behind_Master ?? status.Seconds_Behind_Source ?? undefined,
      follows,
    };
  }
}
