import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createConnection, type Connection, type RowDataPacket } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { migrateServers } from '../../src/cli/migrate-servers';
import { toDatabaseConfig } from '../../src/config/database.config';
import { validateEnvironment } from '../../src/config/environment';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { hasReached, parseGtidPosition, type GtidPosition } from '../../src/database/replication-lag';
import { foldAllChanges } from '../../src/orders/counting/daily-counts';
import { startThrowawayMysql, type ThrowawayMysql } from '../../launchers/mysql-server';
import {
  createReplicatedDatabase,
  grantCountFolding,
  pointReplicaAt,
  RECORDS_ACCOUNT_ENVIRONMENT,
} from '../../launchers/replication';
import { waitFor } from '../../launchers/wait-for';

/** Where the pairs live between runs: seeding ten million orders is done once. */
const ROOT = process.env.BENCH_DATA_DIR ?? join(homedir(), '.cache', 'orders-service', 'bench-growth');
export const GROWTH_DATABASE = 'orders_bench';

/** Where the service measured on the pairs writes its log, kept beside them. */
export function serviceLogFile(name: string): string {
  mkdirSync(ROOT, { recursive: true });
  return join(ROOT, `service-${name}.log`);
}
const SERVICE_USER = { user: 'orders_service', password: 'bench-service-secret' };
const REPLICATION_USER = { user: 'replicator', password: 'bench-replicator-secret' };
/** Room for the replica's working set at ten million orders (its own indexes included), on a 24 GiB machine. */
const BUFFER_POOL_MB = { primary: 3072, replica: 10240 };

/** How long each step of making a pair took, in seconds; kept with the data. */
export interface SeedRecord {
  orders: number;
  members: number;
  concerts: number;
  loadSeconds: number;
  copySeconds: number;
  replicaIndexSeconds: number;
  totalSeconds: number;
}

export interface GrowthPair {
  primary: ThrowawayMysql;
  replica: ThrowawayMysql;
  record: SeedRecord;
  /** What the service is started with to read from this pair. */
  environment: Record<string, string>;
  /** A root connection to either server. */
  root(which: 'primary' | 'replica'): Promise<Connection>;
  stop(): Promise<void>;
}

/** The data: 500,000 members and 5,000 concerts at ten million orders, in proportion below that. */
export const generationOf = (orders: number) => ({
  orders,
  members: Math.max(1, Math.round(orders / 20)),
  concerts: Math.max(1, Math.round(orders / 2000)),
});

const rootConnection = (port: number) =>
  createConnection({ host: '127.0.0.1', port, user: 'root', multipleStatements: true });

const seconds = (since: number) => Math.round((performance.now() - since) / 100) / 10;

function run(command: string, args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited with ${code}`))));
  });
}

const environmentOf = (primaryPort: number, user: { user: string; password: string }, replicaPort?: number) => ({
  DB_TYPE: 'mysql',
  DB_HOST: '127.0.0.1',
  DB_PORT: String(primaryPort),
  DB_USERNAME: user.user,
  DB_PASSWORD: user.password,
  DB_DATABASE: GROWTH_DATABASE,
  ...(replicaPort !== undefined && { DB_REPLICAS: `127.0.0.1:${replicaPort}` }),
});

/**
 * Makes the data once: one server without a binary log is migrated and seeded (the seeder loads with the
 * secondary indexes off and builds them after), shut down cleanly, and its data directory copied for the replica,
 * so the replica starts where the primary is rather than replaying millions of rows. Both then run in GTID
 * replication, and the migration command builds the replica's own indexes.
 */
async function seed(directory: string, orders: number): Promise<SeedRecord> {
  const generation = generationOf(orders);
  rmSync(directory, { recursive: true, force: true });
  mkdirSync(join(directory, 'primary'), { recursive: true });
  const started = performance.now();
  const loader = await startThrowawayMysql(undefined, {
    directory: join(directory, 'primary'),
    bufferPoolMb: BUFFER_POOL_MB.primary,
  });
  try {
    const root = await rootConnection(loader.port);
    await createReplicatedDatabase(root, GROWTH_DATABASE, { service: SERVICE_USER, replication: REPLICATION_USER });
    await root.end();
    const maintenance = environmentOf(loader.port, { user: 'root', password: '' });
    await migrateServers(toDatabaseConfig(validateEnvironment(maintenance)), (line) => console.error(line));
    await run(
      process.execPath,
      [
        '-r',
        'ts-node/register',
        'src/cli/seed.ts',
        `--orders=${generation.orders}`,
        `--members=${generation.members}`,
        `--concerts=${generation.concerts}`,
      ],
      maintenance,
    );
  } finally {
    await loader.stop();
  }
  const loadSeconds = seconds(started);
  const copied = performance.now();
  cpSync(join(directory, 'primary', 'data'), join(directory, 'replica', 'data'), { recursive: true });
  const copySeconds = seconds(copied);
  const indexed = performance.now();
  const pair = await startPair(directory);
  try {
    const maintenance = environmentOf(pair.primary.port, { user: 'root', password: '' }, pair.replica.port);
    await migrateServers(toDatabaseConfig(validateEnvironment(maintenance)), (line) => console.error(line));
  } finally {
    await pair.replica.stop();
    await pair.primary.stop();
  }
  const record = {
    ...generation,
    loadSeconds,
    copySeconds,
    replicaIndexSeconds: seconds(indexed),
    totalSeconds: seconds(started),
  };
  writeFileSync(join(directory, 'seeded.json'), `${JSON.stringify(record, null, 2)}\n`);
  return record;
}

/** Starts both servers of a directory in GTID replication, the replica pointed at the primary's port of this run. */
async function startPair(directory: string): Promise<{ primary: ThrowawayMysql; replica: ThrowawayMysql }> {
  const primary = await startThrowawayMysql(
    { role: 'primary', serverId: 1 },
    { directory: join(directory, 'primary'), bufferPoolMb: BUFFER_POOL_MB.primary },
  );
  let replica: ThrowawayMysql | undefined;
  try {
    replica = await startThrowawayMysql(
      { role: 'replica', serverId: 2 },
      { directory: join(directory, 'replica'), bufferPoolMb: BUFFER_POOL_MB.replica },
    );
    const root = await rootConnection(replica.port);
    try {
      await pointReplicaAt(root, primary.port, REPLICATION_USER);
      await waitFor('the replica to replicate', async () => {
        const [[status]] = await root.query<RowDataPacket[]>('SHOW REPLICA STATUS');
        return status?.Slave_IO_Running === 'Yes' && status?.Slave_SQL_Running === 'Yes';
      });
    } finally {
      await root.end();
    }
    return { primary, replica };
  } catch (error) {
    await replica?.stop();
    await primary.stop();
    throw error;
  }
}

/**
 * A primary and a replica holding `orders` orders, seeded on the first run (the time each step took is kept
 * with the data and printed) and reused after. With `copy`, the servers run on a copy of the kept pair, named so,
 * which `stop` deletes: for a bench that leaves the pair unfit to reuse, as a failover does.
 */
export async function growthPair(orders: number, { copy }: { copy?: string } = {}): Promise<GrowthPair> {
  const kept = join(ROOT, String(orders));
  const recordFile = join(kept, 'seeded.json');
  const record = existsSync(recordFile)
    ? (JSON.parse(readFileSync(recordFile, 'utf8')) as SeedRecord)
    : await seed(kept, orders);
  const directory = copy === undefined ? kept : join(ROOT, `${orders}-${copy}`);
  if (copy !== undefined) {
    rmSync(directory, { recursive: true, force: true });
    for (const server of ['primary', 'replica'])
      cpSync(join(kept, server, 'data'), join(directory, server, 'data'), { recursive: true });
  }
  const { primary, replica } = await startPair(directory);
  // Kept data is brought to what this checkout's migrations and listing indexes need, as a deployment would be.
  try {
    const maintenance = environmentOf(primary.port, { user: 'root', password: '' }, replica.port);
    await migrateServers(toDatabaseConfig(validateEnvironment(maintenance)), (line) => console.error(line));
    const root = await rootConnection(primary.port);
    try {
      await grantCountFolding(root, GROWTH_DATABASE, SERVICE_USER);
    } finally {
      await root.end();
    }
  } catch (error) {
    await replica.stop();
    await primary.stop();
    throw error;
  }
  return {
    primary,
    replica,
    record,
    environment: { ...environmentOf(primary.port, SERVICE_USER, replica.port), ...RECORDS_ACCOUNT_ENVIRONMENT },
    root: (which) => rootConnection(which === 'primary' ? primary.port : replica.port),
    stop: async () => {
      await replica.stop();
      await primary.stop();
      if (copy !== undefined) rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** A server's GTID position: what it has committed (`gtid_binlog_pos`) or, on a replica, applied. */
export async function position(
  connection: Connection,
  variable: 'gtid_binlog_pos' | 'gtid_slave_pos',
): Promise<GtidPosition> {
  const [[row]] = await connection.query<RowDataPacket[]>(`SELECT @@global.${variable} AS position`);
  return parseGtidPosition(String(row.position ?? ''));
}

/** Waits (launchers' `waitFor`) until `reached` holds, polling every `intervalMs`; returns the seconds it took. */
export async function secondsUntil(what: string, reached: () => Promise<boolean>, intervalMs = 50): Promise<number> {
  const started = performance.now();
  // Applying a sale a replica fell behind on may take many minutes at 10M orders.
  await waitFor(what, reached, { timeoutMs: 1_800_000, intervalMs });
  return (performance.now() - started) / 1000;
}

/** Waits until the replica has applied everything the primary has committed; returns the seconds it took. */
export async function caughtUp(pair: GrowthPair): Promise<number> {
  const [primary, replica] = [await pair.root('primary'), await pair.root('replica')];
  try {
    const committed = await position(primary, 'gtid_binlog_pos');
    return await secondsUntil('the replica to catch up', async () =>
      hasReached(await position(replica, 'gtid_slave_pos'), committed),
    );
  } finally {
    await Promise.all([primary.end(), replica.end()]);
  }
}

/**
 * Folds every counting row written without a service running (docs/API.md §7) on the primary, as the service's fold
 * would have had it run meanwhile (an admin count reads every row not folded yet), and waits for the replica.
 */
export async function foldCounts(pair: GrowthPair): Promise<void> {
  const dataSource = new DataSource(
    buildDataSourceOptions(
      toDatabaseConfig(validateEnvironment({ ...pair.environment, DB_USERNAME: 'root', DB_PASSWORD: '' })),
      'maintenance',
    ),
  );
  await dataSource.initialize();
  try {
    await foldAllChanges(dataSource);
  } finally {
    await dataSource.destroy();
  }
  await caughtUp(pair);
}
