import type { QueryRunner } from 'typeorm';
import { REPLICA_INDEXES } from './replica-indexes';

interface IndexRow {
  name: string;
  columns: string;
}

/**
 * docs/API.md §14: brings one replica's own read structures to what the listing expects, on a connection to that
 * replica. Each of REPLICA_INDEXES that is missing, or has other columns, is (re)built in one in-place ALTER,
 * so that the table is read once whatever the number of indexes, and replication applies rows throughout
 * (`LOCK=NONE`). The session's binary log is off for it: the ALTER is the replica's own, so it must leave no
 * transaction of its own in the GTID history, which would be errant on a failover. Re-running it changes
 * nothing; a replica rebuilt from a copy of the primary gets them again. Returns the indexes it built.
 */
export async function applyReplicaIndexes(runner: QueryRunner): Promise<string[]> {
  const rows = (await runner.query(
    `SELECT INDEX_NAME AS name,
       GROUP_CONCAT(CONCAT(COLUMN_NAME, IF(COLLATION = 'D', ' DESC', '')) ORDER BY SEQ_IN_INDEX) AS columns
     FROM information_schema.STATISTICS
     WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'orders'
     GROUP BY INDEX_NAME`,
  )) as IndexRow[];
  const present = new Map(rows.map(({ name, columns }) => [name, columns]));
  const changes: string[] = [];
  const built: string[] = [];
  for (const index of REPLICA_INDEXES) {
    const columns = index.sqlColumns.join(',');
    if (present.get(index.name) === columns) continue;
    if (present.has(index.name)) changes.push(`DROP INDEX ${index.name}`);
    changes.push(`ADD INDEX ${index.name} (${index.sqlColumns.join(', ')})`);
    built.push(index.name);
  }
  if (changes.length === 0) return built;
  await runner.query('SET SESSION sql_log_bin = 0');
  try {
    // Waiting on the metadata lock behind a long transaction would hold up the replication thread behind it.
    await runner.query('SET SESSION lock_wait_timeout = 60');
    await runner.query(`ALTER TABLE orders ${changes.join(', ')}, ALGORITHM=INPLACE, LOCK=NONE`);
  } finally {
    await runner.query('SET SESSION sql_log_bin = 1');
  }
  return built;
}
