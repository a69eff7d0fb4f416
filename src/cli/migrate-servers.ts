import { DataSource, type QueryRunner } from 'typeorm';
import type { DatabaseConfig } from '../config/database.config';
import { buildDataSourceOptions } from '../database/data-source-options';
import { ORDER_ENTITIES } from '../orders/order-entities';
import {
  primaryVerdict,
  replicationOf,
  ROLE_STATEMENT,
  roleFrom,
  type ReplicaStatus,
  type RoleReport,
  type RoleRow,
} from '../database/server-roles';
import { applyReplicaIndexes, removeReplicaColumn, removeReplicaStructures } from '../orders/replica-structures';

/** How long a replica may take to apply the primary's migrations before its own structures are built. */
const REPLICA_CATCH_UP_S = 600;

interface Candidate {
  name: string;
  /** Undefined for the embedded database. */
  address?: { host: string; port: number };
}

/** `npm run migration:run`: the primary's migrations, then each replica's own structures once it has applied them; the
 * primary is the server that says so, and a promoted one loses the replicas' structures. Idempotent. */
export async function migrateServers(config: DatabaseConfig, log: (line: string) => void): Promise<void> {
  const { primary: elected, replicas } = await topologyOf(config, log);
  const primary = new DataSource({
    ...buildDataSourceOptions({ ...config, ...elected.address }, 'maintenance'),
    entities: ORDER_ENTITIES,
  });
  await primary.initialize();
  let position: string | undefined;
  try {
    if (replicas.length > 0 && (await primary.showMigrations())) {
      await onEach(config, replicas, async (runner, name) => {
        const removed = await removeReplicaColumn(runner);
        if (removed.length > 0) log(`${name}: removed ${removed.join(', ')} until the primary's migrations apply`);
      });
    }
    const applied = await primary.runMigrations();
    // DB_HOST is the primary unless the servers say otherwise: then which one, by its address.
    const name = elected.name === 'primary' ? elected.name : labelOf(elected);
    log(
      applied.length === 0 ? `${name}: no pending migration` : `${name}: ran ${applied.map((m) => m.name).join(', ')}`,
    );
    if (replicas.length > 0) {
      const runner = primary.createQueryRunner();
      try {
        const removed = await removeReplicaStructures(runner);
        if (removed.length > 0) log(`${name}: the primary now; removed the replicas' own ${removed.join(', ')}`);
      } finally {
        await runner.release();
      }
      position = await gtidPosition(primary);
    }
  } finally {
    await primary.destroy();
  }
  await onEach(config, replicas, async (runner, name) => {
    if (position) await waitForPosition(runner, position, name);
    const changed = await applyReplicaIndexes(runner);
    log(changed.length === 0 ? `${name}: read indexes up to date` : `${name}: ${changed.join(', ')}`);
  });
}

const labelOf = ({ name, address }: Candidate) => (address ? `${name} (${address.host}:${address.port})` : name);

/** DB_HOST and DB_REPLICAS are candidates: each is asked what it is, and the primary is the one the servers name. */
async function topologyOf(
  config: DatabaseConfig,
  log: (line: string) => void,
): Promise<{ primary: Candidate; replicas: Candidate[] }> {
  if (config.type !== 'mysql') return { primary: { name: 'primary' }, replicas: [] };
  const configured: Candidate = { name: 'primary', address: { host: config.host, port: config.port } };
  if (config.replicas.length === 0) return { primary: configured, replicas: [] };
  const candidates = [
    configured,
    ...config.replicas.map((address, index) => ({ name: `replica-${index + 1}`, address })),
  ];
  const reports = await Promise.all(candidates.map((candidate) => roleOf(config, candidate)));
  const verdict = primaryVerdict(reports[0], reports.slice(1));
  const primary = verdict.current ? configured : candidates.find(({ name }) => name === verdict.successor);
  if (!primary) {
    throw new Error(`Which server is the primary cannot be told (primary: ${verdict.current || verdict.why})`);
  }
  if (primary !== configured) log(`${labelOf(primary)} is the primary by what the servers say, not DB_HOST`);
  const replicas = candidates.filter((candidate, index) => {
    if (candidate === primary) return false;
    if (reports[index].replicating) return true;
    log(`${labelOf(candidate)}: left alone, it does not replicate`);
    return false;
  });
  return { primary, replicas };
}

/** What a candidate says of its role; one that cannot be reached does not answer. */
async function roleOf(config: DatabaseConfig, { name, address }: Candidate): Promise<RoleReport> {
  const server = new DataSource(buildDataSourceOptions({ ...config, ...address }, 'maintenance'));
  try {
    await server.initialize();
    const [role] = await server.query<RoleRow[]>(ROLE_STATEMENT);
    const [status] = await server.query<ReplicaStatus[]>('SHOW REPLICA STATUS');
    return { name, answering: true, ...roleFrom(role, replicationOf(status)) };
  } catch {
    return { name, answering: false };
  } finally {
    if (server.isInitialized) await server.destroy();
  }
}

/** Runs `work` on a maintenance connection to each replica in turn, one at a time. */
async function onEach(
  config: DatabaseConfig,
  replicas: readonly Candidate[],
  work: (runner: QueryRunner, name: string) => Promise<void>,
): Promise<void> {
  for (const candidate of replicas) {
    const replica = new DataSource(buildDataSourceOptions({ ...config, ...candidate.address }, 'maintenance'));
    await replica.initialize();
    const runner = replica.createQueryRunner();
    try {
      await work(runner, labelOf(candidate));
    } finally {
      await runner.release();
      await replica.destroy();
    }
  }
}

/** Where a statement can be sent: a DataSource or one of its query runners. */
interface Queryable {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

/** MariaDB and MySQL name their GTID positions, and the wait for one, differently. */
async function isMariaDb(server: Queryable): Promise<boolean> {
  const [{ mariadb }] = (await server.query('SELECT VERSION() LIKE "%MariaDB%" AS mariadb')) as Array<{
    mariadb: number | string;
  }>;
  return Number(mariadb) === 1;
}

/** The primary's GTID position (MariaDB's `gtid_binlog_pos`, MySQL's `gtid_executed`). */
async function gtidPosition(primary: Queryable): Promise<string> {
  const variable = (await isMariaDb(primary)) ? '@@global.gtid_binlog_pos' : '@@global.gtid_executed';
  const [{ position }] = (await primary.query(`SELECT ${variable} AS position`)) as Array<{ position: string }>;
  return position;
}

async function waitForPosition(replica: Queryable, position: string, name: string): Promise<void> {
  const wait = (await isMariaDb(replica))
    ? 'SELECT MASTER_GTID_WAIT(?, ?) AS outcome'
    : 'SELECT WAIT_FOR_EXECUTED_GTID_SET(?, ?) AS outcome';
  const [{ outcome }] = (await replica.query(wait, [position, REPLICA_CATCH_UP_S])) as Array<{ outcome: number }>;
  if (Number(outcome) !== 0) {
    throw new Error(`${name} has not applied the primary's migrations within ${REPLICA_CATCH_UP_S} s (at ${position})`);
  }
}
