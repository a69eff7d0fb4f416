import { createConnection, type Connection, type RowDataPacket } from 'mysql2/promise';
import type { DatabaseTls } from '../config/database-tls';

/** A health check that takes longer than this counts as the server not answering. */
export const PROBE_TIMEOUT_MS = 1000;

/** Where a MySQL DataSource connects; its options say it, so the health check connects to the same server. */
export interface ConnectionOptions {
  host?: string;
  port?: number;
  username?: string;
  password?: string;
  database?: string;
  ssl?: DatabaseTls;
}

/** A connection of a server's own, outside its pool, opened on first use; statements that start together share it
 * rather than each open one, and any failure closes it so that the next statement starts afresh. */
export class SideConnection {
  private connection?: Promise<Connection>;

  /** `dataSource`: the pool's, whose options are read at each connection: a moved address is followed. */
  constructor(private readonly dataSource: { readonly options: object }) {}

  async query<T extends RowDataPacket>(sql: string): Promise<T[]> {
    const { host, port, username, password, database, ssl } = this.dataSource.options as ConnectionOptions;
    const connection = (this.connection ??= this.retiredOnClose({
      host,
      port,
      user: username,
      password,
      database,
      ssl,
      connectTimeout: PROBE_TIMEOUT_MS,
    }));
    try {
      const [rows] = await (await connection).query<T[]>({ sql, timeout: PROBE_TIMEOUT_MS });
      return rows;
    } catch (error) {
      this.close(connection);
      throw error;
    }
  }

  /** A connection retired as soon as it closes, so that the next statement opens another rather than fail on it. */
  private retiredOnClose(options: Parameters<typeof createConnection>[0]): Promise<Connection> {
    const opened = createConnection(options);
    opened.then(
      (connection) => {
        connection.once('end', () => this.close(opened));
        connection.on('error', () => this.close(opened));
      },
      () => undefined,
    );
    return opened;
  }

  /** Closes the connection, unless a later statement has already replaced the one that failed. */
  close(failed = this.connection): void {
    if (!failed || failed !== this.connection) return;
    this.connection = undefined;
    failed.then(
      (connection) => connection.destroy(),
      () => undefined,
    );
  }
}
