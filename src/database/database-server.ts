import { createConnection, type Connection, type RowDataPacket } from 'mysql2/promise';
import type { DataSource } from 'typeorm';
import type { DatabaseConfig } from '../config/database.config';
import { DatabaseAdmission } from './database-admission';
import type { GtidPosition } from './replication-lag';

/** How servers are named in metrics, traces and logs (CONTRACT §12): `replica-N` in DB_REPLICAS order. */
export type ServerName = 'primary' | `replica-${number}`;

/** Where a MySQL DataSource connects; its options say it, so the health check connects to the same server. */
interface ConnectionOptions {
  host?: string;
  port?: number;
  username?: string;
  password?: string;
  database?: string;
}

/** A health check that takes longer than this counts as the server not answering. */
export const PROBE_TIMEOUT_MS = 1000;

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
}

/**
 * One database server the listing can read from: its TypeORM DataSource (with
 * its own pool and admission), and a connection of its own for the background
 * health checks, so that a check never waits behind requests for a pooled
 * connection and never runs on the request path.
 */
export class DatabaseServer {
  readonly admission: DatabaseAdmission;
  health: ServerHealth;
  /** When a request last found this server failing; a check started before that cannot clear it. */
  failedAt = Number.NEGATIVE_INFINITY;
  private probe?: Connection;

  constructor(
    readonly name: ServerName,
    readonly dataSource: DataSource,
    config: DatabaseConfig,
  ) {
    this.admission = new DatabaseAdmission(dataSource, config);
    // Until a check says otherwise the primary is assumed to answer and a replica is not read from.
    this.health = { answering: name === 'primary', replicating: false };
  }

  /** Runs one statement of a health check; any failure closes the check's connection so the next one starts afresh. */
  async check<T extends RowDataPacket>(sql: string): Promise<T[]> {
    try {
      const { host, port, username, password, database } = this.dataSource.options as ConnectionOptions;
      this.probe ??= await createConnection({
        host,
        port,
        user: username,
        password,
        database,
        connectTimeout: PROBE_TIMEOUT_MS,
      });
      const [rows] = await this.probe.query<T[]>({ sql, timeout: PROBE_TIMEOUT_MS });
      return rows;
    } catch (error) {
      this.closeCheck();
      throw error;
    }
  }

  /** Opens the pool of a replica that could not be reached when the service started. */
  async open(): Promise<void> {
    if (!this.dataSource.isInitialized) await this.dataSource.initialize();
  }

  closeCheck(): void {
    this.probe?.destroy();
    this.probe = undefined;
  }

  async close(): Promise<void> {
    this.closeCheck();
    if (this.name !== 'primary' && this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}
