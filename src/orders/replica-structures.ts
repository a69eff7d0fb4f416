import type { QueryRunner } from 'typeorm';
import { REPLICA_COLUMN, REPLICA_INDEX_PREFIX, REPLICA_INDEXES } from './replica-indexes';

interface IndexRow {
  name: string;
  columns: string;
}

/** Brings one replica's own read structures to what the listing expects, on a connection to that replica. */
export async function applyReplicaIndexes(runner: QueryRunner): Promise<string[]> {
  const present = await indexesOf(runner);
  const changes: string[] = [];
  const done: string[] = [];
  const withColumn = !(await hasReplicaColumn(runner));
  if (withColumn) {
    changes.push(`ADD COLUMN ${REPLICA_COLUMN.name} ${REPLICA_COLUMN.definition}`);
    done.push(`built ${REPLICA_COLUMN.name}`);
  }
  const wanted = new Set(REPLICA_INDEXES.map((index) => index.name));
  const unlisted = [...present.keys()].filter((name) => name.startsWith(REPLICA_INDEX_PREFIX) && !wanted.has(name));
  for (const index of REPLICA_INDEXES) {
    const columns = index.sqlColumns.join(',');
    if (present.get(index.name) === columns) continue;
    if (present.has(index.name)) changes.push(`DROP INDEX ${index.name}`);
    const same = unlisted.findIndex((name) => present.get(name) === columns);
    if (same >= 0 && !present.has(index.name)) {
      changes.push(`RENAME INDEX ${unlisted[same]} TO ${index.name}`);
      done.push(`renamed ${unlisted[same]} to ${index.name}`);
      unlisted.splice(same, 1);
    } else {
      changes.push(`ADD INDEX ${index.name} (${index.sqlColumns.join(', ')})`);
      done.push(`built ${index.name}`);
    }
  }
  for (const name of unlisted) {
    changes.push(`DROP INDEX ${name}`);
    done.push(`dropped ${name}`);
  }
  if (changes.length === 0) return done;
  await alterWithoutBinaryLog(
    runner,
    `ALTER TABLE orders ${changes.join(', ')}, ${withColumn ? 'ALGORITHM=COPY, LOCK=SHARED' : 'ALGORITHM=INPLACE, LOCK=NONE'}`,
  );
  return done;
}

/** Takes the replica's own column, and the indexes on it, off a replica before the primary's migrations run. */
export async function removeReplicaColumn(runner: QueryRunner): Promise<string[]> {
  if (!(await hasReplicaColumn(runner))) return [];
  const present = await indexesOf(runner);
  const onColumn = REPLICA_INDEXES.filter(
    (index) =>
      index.sqlColumns.some((column) => column.split(' ')[0] === REPLICA_COLUMN.name) && present.has(index.name),
  ).map((index) => index.name);
  await alterWithoutBinaryLog(
    runner,
    `ALTER TABLE orders ${[...onColumn.map((name) => `DROP INDEX ${name}`), `DROP COLUMN ${REPLICA_COLUMN.name}`].join(', ')}`,
  );
  return [...onColumn, REPLICA_COLUMN.name];
}

/** Takes the replicas' own structures off a promoted primary, binary log off so the replicas keep theirs: each costs
 * every write of a sale. Returns what it removed. */
export async function removeReplicaStructures(runner: QueryRunner): Promise<string[]> {
  const indexes = [...(await indexesOf(runner)).keys()].filter((name) => name.startsWith(REPLICA_INDEX_PREFIX));
  const column = (await hasReplicaColumn(runner)) ? [REPLICA_COLUMN.name] : [];
  if (indexes.length + column.length === 0) return [];
  const drops = [...indexes.map((name) => `DROP INDEX ${name}`), ...column.map((name) => `DROP COLUMN ${name}`)];
  await alterWithoutBinaryLog(runner, `ALTER TABLE orders ${drops.join(', ')}`);
  return [...indexes, ...column];
}

async function indexesOf(runner: QueryRunner): Promise<Map<string, string>> {
  const rows = (await runner.query(
    `SELECT INDEX_NAME AS name,
       GROUP_CONCAT(CONCAT(COLUMN_NAME, IF(COLLATION = 'D', ' DESC', '')) ORDER BY SEQ_IN_INDEX) AS columns
     FROM information_schema.STATISTICS
     WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'orders'
     GROUP BY INDEX_NAME`,
  )) as IndexRow[];
  return new Map(rows.map(({ name, columns }) => [name, columns]));
}

async function hasReplicaColumn(runner: QueryRunner): Promise<boolean> {
  const rows = (await runner.query(
    `SELECT 1 FROM information_schema.COLUMNS
     WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'orders' AND COLUMN_NAME = ?`,
    [REPLICA_COLUMN.name],
  )) as unknown[];
  return rows.length > 0;
}

async function alterWithoutBinaryLog(runner: QueryRunner, alter: string): Promise<void> {
  await runner.query('SET SESSION sql_log_bin = 0');
  try {
    // Waiting on the metadata lock behind a long transaction would hold up the replication thread behind it.
    await runner.query('SET SESSION lock_wait_timeout = 60');
    await runner.query(alter);
  } finally {
    await runner.query('SET SESSION sql_log_bin = 1');
  }
}
