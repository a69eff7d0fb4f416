import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { RowDataPacket } from 'mysql2/promise';
import { performance } from 'node:perf_hooks';
import { DataSource, type QueryRunner } from 'typeorm';
import { ProblemException } from '../common/problem/problem-details';
import { DATABASE_CONFIG } from '../config/config.module';
import type { DatabaseConfig } from '../config/database.config';
import { buildDataSourceOptions } from './data-source-options';
import { DatabaseSaturatedException, DatabaseUnavailableException, isDatabaseUnavailable } from './database-errors';
import { DatabaseServer, type ServerHealth, type ServerName } from './database-server';
import { parseGtidPosition, PrimaryTimeline, progressOf } from './replication-lag';

/** CONTRACT §11: health is checked about once a second. */
export const CHECK_INTERVAL_MS = 1000;
/** The primary's positions are remembered this long; a replica further behind is reported at least this stale. */
const TIMELINE_KEEP_MS = 10 * 60_000;
/** MySQL has no `@@gtid_binlog_pos` / `@@gtid_slave_pos`; there the replica's own estimate is used. */
const ER_UNKNOWN_SYSTEM_VARIABLE = 1193;
/** SHOW REPLICA STATUS without the SLAVE MONITOR privilege. */
const ER_SPECIFIC_ACCESS_DENIED = 1227;
const MISSING_GRANT = 'SHOW REPLICA STATUS is refused: the service user needs GRANT SLAVE MONITOR ON *.*';

type Work<T> = (runner: QueryRunner, withinDeadline: () => void) => Promise<T>;

interface ReplicaStatus extends RowDataPacket {
  Slave_IO_Running?: string;
  Slave_SQL_Running?: string;
  Replica_IO_Running?: string;
  Replica_SQL_Running?: string;
  Seconds_Behind_Master?: number | null;
  Seconds_Behind_Source?: number | null;
  Last_IO_Error?: string;
  Last_SQL_Error?: string;
}

/** The server answers and its pool is open: a request could read from it. */
const canRead = (server: DatabaseServer): boolean => server.health.answering && server.dataSource.isInitialized;

const reasonOf = (error: unknown): string =>
  (error as { code?: string }).code ?? (error instanceof Error ? error.message : String(error));

/**
 * CONTRACT §11, read routing: which database server a listing request reads
 * from. The primary and each replica of DB_REPLICAS is a DataSource of its
 * own (pool, admission); a background check about once a second tells which
 * replicas answer, replicate and are within DB_REPLICA_MAX_LAG_S of the
 * primary. A request runs all its statements on one connection of one
 * server: a healthy replica in turn, else the primary, else (the primary
 * down) the freshest replica that answers. A server failing during a request
 * is marked down at once and the request is tried once more elsewhere, within
 * the same deadline. Every change of a server's state is logged once.
 */
@Injectable()
export class ReadRouter implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ReadRouter');
  readonly servers: DatabaseServer[];
  private readonly primary: DatabaseServer;
  readonly replicas: DatabaseServer[];
  private readonly byDataSource = new Map<DataSource, DatabaseServer>();
  private readonly timeline = new PrimaryTimeline(TIMELINE_KEEP_MS);
  private readonly maxLagSeconds: number;
  private readonly deadlineMs?: number;
  private nextReplica = 0;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  /** Whether the servers know GTID positions (MariaDB); learned from the first check. */
  private gtid = true;
  /** The state last logged for each server, so that each change is logged once. */
  private readonly logged = new Map<ServerName, string>();

  constructor(@InjectDataSource() primary: DataSource, @Inject(DATABASE_CONFIG) config: DatabaseConfig) {
    this.primary = new DatabaseServer('primary', primary, config);
    this.replicas =
      config.type === 'mysql'
        ? config.replicas.map(
            (address, index) =>
              new DatabaseServer(
                `replica-${index + 1}`,
                new DataSource(buildDataSourceOptions({ ...config, ...address })),
                config,
              ),
          )
        : [];
    this.servers = [this.primary, ...this.replicas];
    for (const server of this.servers) this.byDataSource.set(server.dataSource, server);
    this.maxLagSeconds = config.type === 'mysql' ? config.replicaMaxLagSeconds : 0;
    // The embedded database runs in-process and cannot hang on a network.
    this.deadlineMs = config.type === 'mysql' ? config.queryTimeoutMs : undefined;
  }

  /** The first check runs before the service takes requests, so that routing starts from what is true. */
  async onApplicationBootstrap(): Promise<void> {
    if (this.replicas.length === 0) return;
    await this.checkAll();
    this.schedule();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.allSettled(this.servers.map((server) => server.close()));
  }

  /** The server a runner belongs to, for the metrics and traces of its statements. */
  serverOf(runner: QueryRunner): ServerName {
    return this.byDataSource.get(runner.dataSource)?.name ?? 'primary';
  }

  /** Readiness (CONTRACT §11): a replica that answers can serve the listing while the primary does not. */
  answeringReplica(): ServerName | undefined {
    return this.replicas.find(canRead)?.name;
  }

  isHealthy(server: DatabaseServer): boolean {
    const { answering, replicating, lagSeconds } = server.health;
    return (
      server !== this.primary &&
      answering &&
      replicating &&
      lagSeconds !== undefined &&
      lagSeconds <= this.maxLagSeconds &&
      canRead(server)
    );
  }

  /**
   * Runs a request's statements on one connection of the server routing
   * picks; if that server fails (refused, reset, timed out), marks it down and
   * runs them once more on another, within what is left of the deadline.
   * CONTRACT §10: the request is answered 503 once DB_QUERY_TIMEOUT_MS has
   * passed, however long it queued or its statements run (the driver's own
   * timeout then ends them), and a driver failure that means "not now"
   * becomes the same 503; anything else stays what it is (a 500).
   */
  async withConnection<T>(work: Work<T>): Promise<T> {
    try {
      return await this.withinDeadline(this.route(work));
    } catch (error) {
      throw !(error instanceof ProblemException) && isDatabaseUnavailable(error)
        ? new DatabaseUnavailableException(error)
        : error;
    }
  }

  /** One timer per request, cleared as soon as it is answered. */
  private withinDeadline<T>(work: Promise<T>): Promise<T> {
    const deadlineMs = this.deadlineMs;
    if (deadlineMs === undefined) return work;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new DatabaseUnavailableException(
              new Error(`The database did not answer within ${deadlineMs} ms`),
              'timeout',
            ),
          ),
        deadlineMs,
      );
    });
    return Promise.race([work, expired]).finally(() => clearTimeout(timer));
  }

  private async route<T>(work: Work<T>): Promise<T> {
    const arrived = performance.now();
    const first = this.pick();
    try {
      return await first.admission.withConnection(work, arrived);
    } catch (error) {
      if (!this.isServerFailure(error) || this.replicas.length === 0) throw error;
      this.markFailed(first, error);
      const second = this.pick(first);
      if (second === first) throw error;
      return await second.admission.withConnection(work, arrived);
    }
  }

  /** A healthy replica in turn; else the primary; else the freshest replica that answers; else the primary anyway. */
  private pick(excluded?: DatabaseServer): DatabaseServer {
    if (this.replicas.length === 0) return this.primary;
    const candidates = this.replicas.filter((replica) => replica !== excluded);
    const healthy = candidates.filter((replica) => this.isHealthy(replica));
    if (healthy.length > 0) {
      this.nextReplica = (this.nextReplica + 1) % healthy.length;
      return healthy[this.nextReplica];
    }
    if (this.primary !== excluded && this.primary.health.answering) return this.primary;
    const answering = candidates.filter(canRead);
    if (answering.length > 0) {
      return answering.reduce((best, replica) =>
        progressOf(replica.health.position ?? new Map()) > progressOf(best.health.position ?? new Map())
          ? replica
          : best,
      );
    }
    // Nothing is known to answer: the primary's own failure is the most truthful answer.
    return this.primary;
  }

  /** A failure of the server itself, not of this request's time or of the service's own capacity. */
  private isServerFailure(error: unknown): boolean {
    if (error instanceof DatabaseSaturatedException) return false;
    if (error instanceof DatabaseUnavailableException) return error.problem.reason !== 'timeout';
    return isDatabaseUnavailable(error);
  }

  private markFailed(server: DatabaseServer, error: unknown): void {
    server.failedAt = performance.now();
    if (!server.health.answering) return;
    server.health = { ...server.health, answering: false, problem: `failed during a request: ${reasonOf(error)}` };
    this.logChange(server);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.checkAll().finally(() => this.schedule());
    }, CHECK_INTERVAL_MS);
    // The checks alone must not keep the process alive.
    this.timer.unref();
  }

  /** One round of checks: the primary first (its position is what replicas are measured against), then every replica. */
  private async checkAll(): Promise<void> {
    const started = performance.now();
    this.update(this.primary, await this.checkPrimary(), started);
    await Promise.all(
      this.replicas.map(async (replica) => this.update(replica, await this.checkReplica(replica), started)),
    );
  }

  private async checkPrimary(): Promise<ServerHealth> {
    try {
      if (this.gtid) {
        const [row] = await this.primary.check<RowDataPacket>('SELECT @@global.gtid_binlog_pos AS position');
        this.timeline.record(parseGtidPosition(String(row.position ?? '')), Date.now());
      } else {
        await this.primary.check('SELECT 1');
      }
      return { answering: true, replicating: false };
    } catch (error) {
      if ((error as { errno?: number }).errno === ER_UNKNOWN_SYSTEM_VARIABLE) {
        this.gtid = false;
        return { answering: true, replicating: false };
      }
      return { answering: false, replicating: false, problem: reasonOf(error) };
    }
  }

  private async checkReplica(replica: DatabaseServer): Promise<ServerHealth> {
    try {
      const replication = await this.replicationOf(replica);
      await replica.open();
      if (!this.gtid) return { answering: true, ...replication };
      const [row] = await replica.check<RowDataPacket>('SELECT @@global.gtid_slave_pos AS position');
      const position = parseGtidPosition(String(row.position ?? ''));
      return {
        answering: true,
        replicating: replication.replicating,
        problem: replication.problem,
        position,
        lagSeconds: this.timeline.lagSeconds(position, Date.now()),
      };
    } catch (error) {
      return { answering: false, replicating: false, problem: reasonOf(error) };
    }
  }

  /** Whether both replication threads run, from SHOW REPLICA STATUS (and, on MySQL, the replica's own lag). */
  private async replicationOf(
    replica: DatabaseServer,
  ): Promise<Pick<ServerHealth, 'replicating' | 'problem' | 'lagSeconds'>> {
    let status: ReplicaStatus | undefined;
    try {
      [status] = await replica.check<ReplicaStatus>('SHOW REPLICA STATUS');
    } catch (error) {
      if ((error as { errno?: number }).errno === ER_SPECIFIC_ACCESS_DENIED) {
        return { replicating: false, problem: MISSING_GRANT };
      }
      throw error;
    }
    if (!status) return { replicating: false, problem: 'not a replica: SHOW REPLICA STATUS is empty' };
    const io = status.Slave_IO_Running ?? status.Replica_IO_Running;
    const sql = status.Slave_SQL_Running ?? status.Replica_SQL_Running;
    const lastError = status.Last_SQL_Error || status.Last_IO_Error;
    const replicating = io === 'Yes' && sql === 'Yes';
    return {
      replicating,
      problem: replicating ? undefined : `replication threads IO=${io} SQL=${sql}${lastError ? `: ${lastError}` : ''}`,
      // NULL while a thread is stopped or reconnecting: unknown, never 0.
      lagSeconds: status.Seconds_Behind_Master ?? status.Seconds_Behind_Source ?? undefined,
    };
  }

  /** A check that started before a request found the server failing cannot declare it answering. */
  private update(server: DatabaseServer, health: ServerHealth, checkStarted: number): void {
    if (health.answering && checkStarted < server.failedAt) return;
    server.health = health;
    this.logChange(server);
  }

  private logChange(server: DatabaseServer): void {
    const { answering, lagSeconds, problem } = server.health;
    let state: string;
    let detail: string;
    if (!answering) {
      state = 'down';
      detail = `not answering (${problem}); not read from until it answers again`;
    } else if (server === this.primary) {
      state = 'up';
      detail = 'answering';
    } else if (this.isHealthy(server)) {
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
    if (this.logged.get(server.name) === state) return;
    this.logged.set(server.name, state);
    if (state === 'healthy' || state === 'up') this.logger.log(`${server.name}: ${detail}`);
    else this.logger.warn(`${server.name}: ${detail}`);
  }
}
