import { DataSource, type QueryRunner } from 'typeorm';
import type { DatabaseConfig } from '../config/database.config';
import { buildDataSourceOptions } from '../database/data-source-options';
import { ORDER_ENTITIES } from '../orders/order-entities';
import { applyReplicaIndexes, removeReplicaColumn } from '../orders/replica-structures';

/** How long a replica may take to apply the primary's migrations before its own structures are built. */
const REPLICA_CATCH_UP_S = 600;

/**
 * `npm run migration:run`: the primary's migrations (the schema every server shares, replicated from it), then,
 * with DB_REPLICAS set, each replica's own read structures (docs/API.md §14), once it has applied the primary's
 * migrations. Where the primary has migrations to run, each replica's own column is taken off first
 * (`removeReplicaColumn`) and rebuilt after. Idempotent: a server already up to date is left as it is.
 */
export async function migrateServers(config: DatabaseConfig, log: (line: string) => void): Promise<void> {
  const primary = new DataSource({ ...buildDataSourceOptions(config, 'maintenance'), entities: ORDER_ENTITIES });
  await primary.initialize();
  let position: string | undefined;
  try {
    const replicated = config.type === 'mysql' && config.replicas.length > 0;
    if (replicated && (await primary.showMigrations())) {
      await onEachReplica(config, async (runner, name) => {
        const removed = await removeReplicaColumn(runner);
        if (removed.length > 0) log(`${name}: removed ${removed.join(', ')} until the primary's migrations apply`);
      });
    }
    const applied = await primary.runMigrations();
    log(
      applied.length === 0 ? 'primary: no pending migration' : `primary: ran ${applied.map((m) => m.name).join(', ')}`,
    );
    if (replicated) position = await gtidPosition(primary);
  } finally {
    await primary.destroy();
  }
  await onEachReplica(config, async (runner, name) => {
    if (position) await waitForPosition(runner, position, name);
    const changed = await applyReplicaIndexes(runner);
    log(changed.length === 0 ? `${name}: read indexes up to date` : `${name}: ${changed.join(', ')}`);
  });
}

/** Runs `work` on a maintenance connection to each configured replica in turn, one at a time. */
async function onEachReplica(
  config: DatabaseConfig,
  work: (runner: QueryRunner, name: string) => Promise<void>,
): Promise<void> {
  if (config.type !== 'mysql') return;
  for (const [index, address] of config.replicas.entries()) {
    const name = `replica-${index + 1} (${address.host}:${address.port})`;
    const replica = new DataSource(buildDataSourceOptions({ ...config, ...address }, 'maintenance'));
    await replica.initialize();
    const runner = replica.createQueryRunner();
    try {
      await work(runner, name);
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
