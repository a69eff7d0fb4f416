import { createConnection, createPool, type Pool, type PoolConnection, type RowDataPacket } from 'mysql2/promise';
import type { DatabaseServer } from '../database/database-server';
import type { DatabaseServers } from '../database/database-servers';
import { contains, MARIADB_GTID_DIALECT, MYSQL_GTID_DIALECT } from '../database/gtid';
import type { ConnectionOptions } from '../database/side-connection';
import type { AccessRecord, DownloadEnd } from './access-record';
import {
  NotInTimeError,
  sealStatement,
  statementsOf,
  timedOut,
  type AccessRecordStore,
  type AccountReach,
} from './access-record-store';
import { RECORD_LANES } from './record-lane';
import type { Seal } from './seal';

/** Statements that change nothing, and fail unless the account may UPDATE or DELETE the records. */
const PROBES = {
  update: 'UPDATE access_records SET status = 0 WHERE 1 = 0',
  delete: 'DELETE FROM access_records WHERE 1 = 0',
} as const;

/** MySQL's answer when a privilege on the table is missing. */
const TABLE_ACCESS_DENIED = 'ER_TABLEACCESS_DENIED_ERROR';
const ACCOUNT_CHECK_MS = 2000;

/** The commit's position (MariaDB's own GTID, MySQL's whole executed set), how a replica applies it, and the column
 * of its replication status that says what it has received. */
const FLAVOURS = {
  mariadb: {
    position: 'SELECT @@last_gtid AS position',
    dialect: MARIADB_GTID_DIALECT,
    status: 'SHOW SLAVE STATUS',
    received: 'Gtid_IO_Pos',
  },
  mysql: {
    position: 'SELECT @@global.gtid_executed AS position',
    dialect: MYSQL_GTID_DIALECT,
    status: 'SHOW REPLICA STATUS',
    received: 'Retrieved_Gtid_Set',
  },
} as const;
/** How long a replica is given to apply a commit before it is asked whether it has received it. */
const APPLY_WAIT_MS = 20;

/** docs/API.md §21: the followed primary, through the records' account (INSERT, nothing more); a batch counts as
 * committed once a replica holds it too, so that a failover loses no record of an answer. */
export class MysqlAccessRecordStore implements AccessRecordStore {
  private readonly pools = new Map<string, Pool>();
  private flavour?: keyof typeof FLAVOURS;

  constructor(
    private readonly servers: DatabaseServers,
    private readonly account: { username: string; password: string },
  ) {}

  async insert(records: readonly AccessRecord[], ends: readonly DownloadEnd[], timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    // Read before the commit: a replica found replicating afterwards had received nothing of it anyway.
    const candidates = this.servers.replicas.filter(({ health }) => health.answering && health.replicating);
    const position = await this.onPrimary(deadline, async (connection, timeout) => {
      const statements = statementsOf(records, ends);
      // One statement commits by itself; a record and an end together commit at once or not at all.
      if (statements.length > 1) await connection.query({ sql: 'START TRANSACTION', timeout: timeout() });
      for (const [sql, values] of statements) await connection.query({ sql, values, timeout: timeout() });
      if (statements.length > 1) await connection.query({ sql: 'COMMIT', timeout: timeout() });
      return candidates.length === 0 ? '' : this.positionOf(connection, timeout);
    });
    if (candidates.length > 0) await this.heldByAReplica(candidates, position, deadline);
  }

  async insertSeal(seal: Seal, timeoutMs: number): Promise<void> {
    const [sql, values] = sealStatement(seal);
    await this.onPrimary(Date.now() + timeoutMs, (connection, timeout) =>
      connection.query({ sql, values, timeout: timeout() }),
    );
  }

  async accountReach(): Promise<AccountReach> {
    const allowed = (sql: string) =>
      this.onPrimary(Date.now() + ACCOUNT_CHECK_MS, (connection) => connection.query(sql)).then(
        () => true,
        (error: { code?: string }) => (error.code === TABLE_ACCESS_DENIED ? false : undefined),
      );
    return { update: await allowed(PROBES.update), delete: await allowed(PROBES.delete) };
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.allSettled(pools.map((pool) => pool.end()));
  }

  private async positionOf(connection: PoolConnection, timeout: () => number): Promise<string> {
    if (!this.flavour) {
      const [rows] = await connection.query<RowDataPacket[]>("SHOW VARIABLES LIKE 'version'");
      this.flavour = /mariadb/i.test(String(rows[0]?.Value)) ? 'mariadb' : 'mysql';
    }
    const [[row]] = await connection.query<RowDataPacket[]>({
      sql: FLAVOURS[this.flavour].position,
      timeout: timeout(),
    });
    return String(row?.position ?? '');
  }

  /** Held once a replica that replicates (as the last health round found) has it, applied or only received: its
   * relay log outlives the primary. With none replicating, the primary's commit is all there is. */
  private async heldByAReplica(candidates: DatabaseServer[], position: string, deadline: number): Promise<void> {
    const dialect = this.flavour && FLAVOURS[this.flavour];
    const target = dialect?.dialect.parse(position);
    if (!dialect || !target || target.text === '') return;
    // MariaDB's GTID names the server that committed it; MySQL's set is compared by each source's UUID.
    const committer = this.flavour === 'mariadb' ? Number(position.split('-')[1]) : undefined;
    const held = async (server: DatabaseServer): Promise<void> => {
      for (;;) {
        const left = deadline - Date.now();
        if (left <= 0) throw new NotInTimeError(`${server.name} did not receive ${position} in time`);
        const [[row]] = await this.poolOf(server).query<RowDataPacket[]>({
          sql: dialect.dialect.waitStatement,
          values: [position, Math.min(left, APPLY_WAIT_MS) / 1000],
          timeout: left + ACCOUNT_CHECK_MS,
        });
        const applied = dialect.dialect.reached(row?.waited);
        // A replica re-pointed at another primary passes the position with that one's transactions, not this one.
        const [status] = await server.check<RowDataPacket>(dialect.status);
        if (committer !== undefined && Number(status?.Master_Server_Id) !== committer) {
          throw new NotInTimeError(`${server.name} no longer follows the server that committed ${position}`);
        }
        const received = dialect.dialect.parse(String(status?.[dialect.received] ?? ''));
        if (applied || (received && contains(received, target))) return;
      }
    };
    await Promise.any(candidates.map(held)).catch(() => {
      throw new NotInTimeError(`No replica received the access records' commit (${position}) in time`);
    });
  }

  /** A connection to the primary followed now, until `deadline`; a statement cut at the deadline is killed too, so
   * that it never commits after its request was refused. */
  private async onPrimary<T>(
    deadline: number,
    work: (connection: PoolConnection, timeout: () => number) => Promise<T>,
  ): Promise<T> {
    const timeout = () => {
      const left = deadline - Date.now();
      if (left <= 0) throw new NotInTimeError('The access record was not committed in time');
      return left;
    };
    const primary = this.servers.primary;
    const pending = this.poolOf(primary).getConnection();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new NotInTimeError('No connection for the access record in time')), timeout());
    });
    const connection = await Promise.race([pending, expired]).catch((error: unknown) => {
      pending.then(
        (late) => late.release(),
        () => undefined,
      );
      throw error;
    });
    clearTimeout(timer);
    try {
      const result = await work(connection, timeout);
      connection.release();
      return result;
    } catch (error) {
      // An unknown state (a statement cut, a transaction open): the connection is not handed to the next batch.
      if (timedOut(error)) void this.kill(primary, connection.threadId);
      connection.destroy();
      throw error;
    }
  }

  /** An account may always stop its own statements. */
  private async kill(server: DatabaseServer, threadId: number): Promise<void> {
    const { host, port, ssl } = server.dataSource.options as ConnectionOptions;
    const { username: user, password } = this.account;
    try {
      const connection = await createConnection({ host, port, ssl, user, password, connectTimeout: ACCOUNT_CHECK_MS });
      await connection.query(`KILL QUERY ${Number(threadId)}`).catch(() => undefined);
      await connection.end();
    } catch {
      // The server is gone: so is the statement.
    }
  }

  private poolOf(server: DatabaseServer): Pool {
    const { host, port, database, ssl } = server.dataSource.options as ConnectionOptions;
    const key = `${host}:${port}`;
    let pool = this.pools.get(key);
    if (!pool) {
      pool = createPool({
        host,
        port,
        database,
        ssl,
        user: this.account.username,
        password: this.account.password,
        // A connection per lane, and one for a seal or a check.
        connectionLimit: RECORD_LANES + 1,
        connectTimeout: ACCOUNT_CHECK_MS,
        timezone: 'Z',
        charset: 'utf8mb4_unicode_ci',
      });
      this.pools.set(key, pool);
    }
    return pool;
  }
}
