import { DataSource } from 'typeorm';
import type { DatabaseConfig } from '../config/database.config';
import { buildDataSourceOptions } from '../database/data-source-options';
import { ORDER_ENTITIES } from '../orders/order-entities';
import { applyReplicaIndexes } from '../orders/replica-structures';

/** How long a replica may take to apply the primary's migrations before its own structures are built. */
const REPLICA_CATCH_UP_S = 600;

/**
 * `npm run migration:run`: the primary's migrations (the schema every server shares, replicated from it), then,
 * with DB_REPLICAS set, each replica's own read structures (docs/API.md §14), once it has applied the primary's
 * migrations. Idempotent: a server already up to date is left as it is.
 */
export async function migrateServers(config: DatabaseConfig, log: (line: string) => void): Promise<void> {
  const primary = new DataSource({ ...buildDataSourceOptions(config, 'maintenance'), entities: ORDER_ENTITIES });
  await primary.initialize();
  let position: string | undefined;
  try {
    const applied = await primary.runMigrations();
    log(
      applied.length === 0 ? 'primary: no pending migration' : `primary: ran ${applied.map((m) => m.name).join(', ')}`,
    );
    if (config.type === 'mysql' && config.replicas.length > 0) position = await gtidPosition(primary);
  } finally {
    await primary.destroy();
  }
  if (config.type !== 'mysql') return;
  for (const [index, address] of config.replicas.entries()) {
    const name = `replica-${index + 1} (${address.host}:${address.port})`;
    const replica = new DataSource(buildDataSourceOptions({ ...config, ...address }, 'maintenance'));
    await replica.initialize();
    const runner = replica.createQueryRunner();
    try {
      if (position) await waitForPosition(runner, position, name);
      const built = await applyReplicaIndexes(runner);
      log(built.length === 0 ? `${name}: read indexes up to date` : `${name}: built ${built.join(', ')}`);
    } finally {
      await runner.release();
      await replica.destroy();
    }
  }
}

/** The primary's GTID position (MariaDB's `gtid_binlog_pos`, MySQL's `gtid_executed`). */
async function gtidPosition(primary: DataSource): Promise<string> {
  const [{ mariadb }] = await primary.query<Array<{ mariadb: number | string }>>(
    'SELECT VERSION() LIKE "%MariaDB%" AS mariadb',
  );
  const variable = Number(mariadb) === 1 ? '@@global.gtid_binlog_pos' : '@@global.gtid_executed';
  const [{ position }] = await primary.query<Array<{ position: string }>>(`SELECT ${variable} AS position`);
  return position;
}

async function waitForPosition(
  runner: { query(sql: string, parameters?: unknown[]): Promise<unknown> },
  position: string,
  name: string,
): Promise<void> {
  const [{ mariadb }] = (await runner.query('SELECT VERSION() LIKE "%MariaDB%" AS mariadb')) as Array<{
    mariadb: number | string;
  }>;
  const wait =
    Number(mariadb) === 1
      ? 'SELECT MASTER_GTID_WAIT(?, ?) AS outcome'
      : 'SELECT WAIT_FOR_EXECUTED_GTID_SET(?, ?) AS outcome';
  const [{ outcome }] = (await runner.query(wait, [position, REPLICA_CATCH_UP_S])) as Array<{ outcome: number }>;
  if (Number(outcome) !== 0) {
    throw new Error(`${name} has not applied the primary's migrations within ${REPLICA_CATCH_UP_S} s (at ${position})`);
  }
}
