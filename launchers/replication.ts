import { createConnection, type Connection, type RowDataPacket } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { toDatabaseConfig } from '../src/config/database.config';
import { validateEnvironment } from '../src/config/environment';
import { buildDataSourceOptions } from '../src/database/data-source-options';
import { startThrowawayMysql, type ThrowawayMysql } from './mysql-server';
import { waitFor } from './wait-for';

export const REPLICATED_DATABASE = 'orders_test';
/** The service's own user: it reads, and may read replication status (docs/DEPLOYING.md, "Running several instances"). */
const SERVICE_USER = { user: 'orders_service', password: 'service-secret' };
const REPLICATION_USER = { user: 'replicator', password: 'replicator-secret' };
/** The access records' account: INSERT on their tables alone (docs/DEPLOYING.md, "Access records"). */
const RECORDS_USER = { user: 'orders_records', password: 'records-secret' };

/** The variables that have the service write its access records through `RECORDS_USER`. */
export const RECORDS_ACCOUNT_ENVIRONMENT = {
  ACCESS_RECORD_DB_USERNAME: RECORDS_USER.user,
  ACCESS_RECORD_DB_PASSWORD: RECORDS_USER.password,
};

export interface ReplicationUsers {
  service: { user: string; password: string };
  replication: { user: string; password: string };
}

/**
 * On a primary: the database, the replication user, and the service's user with the grants docs/DEPLOYING.md asks for
 * before the schema exists (`SELECT`, and `SLAVE MONITOR` to read replication status; `grantCountFolding` once it
 * does); they replicate with everything else.
 */
export async function createReplicatedDatabase(
  primaryRoot: Connection,
  database: string,
  { service, replication }: ReplicationUsers = { service: SERVICE_USER, replication: REPLICATION_USER },
): Promise<void> {
  await primaryRoot.query(`
    CREATE DATABASE ${database} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
    CREATE USER '${replication.user}'@'%' IDENTIFIED BY '${replication.password}';
    GRANT REPLICATION SLAVE ON *.* TO '${replication.user}'@'%';
    CREATE USER '${service.user}'@'%' IDENTIFIED BY '${service.password}';
    GRANT SELECT ON ${database}.* TO '${service.user}'@'%';
    GRANT SLAVE MONITOR ON *.* TO '${service.user}'@'%';
  `);
}

/**
 * Once the schema exists, the rights the service's count fold needs (docs/DEPLOYING.md): it moves the counting rows
 * into the per-day totals and deletes them, and may write nothing else; and the access records' account, which may
 * INSERT them and nothing more.
 */
export async function grantCountFolding(
  primaryRoot: Connection,
  database: string,
  service: ReplicationUsers['service'] = SERVICE_USER,
): Promise<void> {
  await primaryRoot.query(`
    GRANT INSERT, UPDATE ON ${database}.order_daily_counts TO '${service.user}'@'%';
    GRANT DELETE ON ${database}.order_count_changes TO '${service.user}'@'%';
    GRANT DELETE ON ${database}.order_count_moves TO '${service.user}'@'%';
    CREATE USER IF NOT EXISTS '${RECORDS_USER.user}'@'%' IDENTIFIED BY '${RECORDS_USER.password}';
    GRANT INSERT ON ${database}.access_records TO '${RECORDS_USER.user}'@'%';
    GRANT INSERT ON ${database}.access_record_ends TO '${RECORDS_USER.user}'@'%';
    GRANT INSERT ON ${database}.access_record_seals TO '${RECORDS_USER.user}'@'%';
  `);
}

/** Points a replica at the primary on `primaryPort` by GTID (again, after either restarted) and starts it. */
export async function pointReplicaAt(
  replicaRoot: Connection,
  primaryPort: number,
  { user, password }: ReplicationUsers['replication'] = REPLICATION_USER,
  delaySeconds = 0,
): Promise<void> {
  await replicaRoot.query(`
    STOP SLAVE;
    CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=${primaryPort},
      MASTER_USER='${user}', MASTER_PASSWORD='${password}',
      MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1, MASTER_HEARTBEAT_PERIOD=1, MASTER_DELAY=${delaySeconds};
    START SLAVE;
  `);
}

export interface ReplicatedMysql {
  primary: ThrowawayMysql;
  replica: ThrowawayMysql;
  /** A root connection to either server, for the test's own writes and checks. */
  root(which: 'primary' | 'replica'): Connection;
  /** What the service is started with to read from this pair. */
  environment: Record<string, string>;
  /** A DataSource on the primary, as root, for planting data. */
  primaryDataSource: DataSource;
  /** Resolves once the replica has applied everything the primary has committed. */
  waitInSync(timeoutMs?: number): Promise<void>;
  /** Points the replica at the primary again (after either restarted) with the given delay. */
  setDelay(seconds: number): Promise<void>;
  /** Reconnects the root connection to a server that was restarted. */
  reconnect(which: 'primary' | 'replica'): Promise<void>;
  stop(): Promise<void>;
}

const rootConnection = (port: number) =>
  createConnection({ host: '127.0.0.1', port, user: 'root', database: undefined, multipleStatements: true });

/** Another replica of `primaryPort`, following it from its first transaction: the schema and users replicate too. */
export async function startReplicaOf(
  primaryPort: number,
  serverId: number,
): Promise<{ server: ThrowawayMysql; root: Connection }> {
  const server = await startThrowawayMysql({ role: 'replica', serverId });
  try {
    const root = await rootConnection(server.port);
    await pointReplicaAt(root, primaryPort);
    return { server, root };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

export async function globalStatus(connection: Connection, name: string): Promise<number> {
  const [rows] = await connection.query<RowDataPacket[]>('SHOW GLOBAL STATUS LIKE ?', [name]);
  return Number(rows[0]?.Value ?? 0);
}

/**
 * A throw-away MariaDB primary and one replica in real GTID replication
 * (docs/API.md §11), with the schema migrated on the primary and replicated,
 * and the service's user created with the grants docs/DEPLOYING.md asks for; a `promotable` replica logs what it
 * applies, as one that other replicas are re-pointed at after its promotion must.
 */
export async function startReplicatedMysql({ promotable = false } = {}): Promise<ReplicatedMysql> {
  const started = await Promise.allSettled([
    startThrowawayMysql({ role: 'primary', serverId: 1 }),
    startThrowawayMysql({ role: 'replica', serverId: 2, promotable }),
  ]);
  const failure = started.find((result) => result.status === 'rejected');
  if (failure) {
    for (const result of started) if (result.status === 'fulfilled') await result.value.stop();
    throw failure.reason;
  }
  const [primary, replica] = started.map((result) => (result as PromiseFulfilledResult<ThrowawayMysql>).value);
  try {
    return await replicate(primary, replica);
  } catch (error) {
    await Promise.all([primary.stop(), replica.stop()]);
    throw error;
  }
}

async function replicate(primary: ThrowawayMysql, replica: ThrowawayMysql): Promise<ReplicatedMysql> {
  let primaryRoot = await rootConnection(primary.port);
  let replicaRoot = await rootConnection(replica.port);
  await createReplicatedDatabase(primaryRoot, REPLICATED_DATABASE);

  const setDelay = (seconds: number) => pointReplicaAt(replicaRoot, primary.port, REPLICATION_USER, seconds);
  await setDelay(0);

  const primaryDataSource = new DataSource(
    buildDataSourceOptions(
      toDatabaseConfig(
        validateEnvironment({
          DB_TYPE: 'mysql',
          DB_HOST: '127.0.0.1',
          DB_PORT: String(primary.port),
          DB_USERNAME: 'root',
          DB_DATABASE: REPLICATED_DATABASE,
        }),
      ),
      'maintenance',
    ),
  );
  await primaryDataSource.initialize();
  await primaryDataSource.runMigrations();
  await grantCountFolding(primaryRoot, REPLICATED_DATABASE);

  const waitInSync = async (timeoutMs = 15_000) => {
    const [[{ position }]] = await primaryRoot.query<RowDataPacket[]>('SELECT @@global.gtid_binlog_pos AS position');
    await waitFor(
      `the replica to apply ${position}`,
      async () => {
        const [[{ reached }]] = await replicaRoot.query<RowDataPacket[]>(
          'SELECT MASTER_GTID_WAIT(?, 0) = 0 AS reached',
          [position],
        );
        return Number(reached) === 1;
      },
      { timeoutMs, intervalMs: 50 },
    );
  };
  await waitInSync();

  return {
    primary,
    replica,
    root: (which) => (which === 'primary' ? primaryRoot : replicaRoot),
    primaryDataSource,
    environment: {
      DB_TYPE: 'mysql',
      DB_HOST: '127.0.0.1',
      DB_PORT: String(primary.port),
      DB_USERNAME: SERVICE_USER.user,
      DB_PASSWORD: SERVICE_USER.password,
      DB_DATABASE: REPLICATED_DATABASE,
      DB_REPLICAS: `127.0.0.1:${replica.port}`,
      ...RECORDS_ACCOUNT_ENVIRONMENT,
    },
    waitInSync,
    setDelay,
    reconnect: async (which) => {
      if (which === 'primary') {
        primaryRoot.destroy();
        primaryRoot = await rootConnection(primary.port);
      } else {
        replicaRoot.destroy();
        replicaRoot = await rootConnection(replica.port);
      }
    },
    stop: async () => {
      primaryRoot.destroy();
      replicaRoot.destroy();
      // The servers first: nothing may outlive the caller, whatever closing the pool below does.
      await Promise.all([primary.stop(), replica.stop()]);
      if (primaryDataSource.isInitialized) await primaryDataSource.destroy().catch(() => undefined);
    },
  };
}
