import type { DataSource } from 'typeorm';
import {
  MONTHS_AHEAD,
  addMonths,
  monthOf,
  monthOfPartition,
  monthsBetween,
  partitionClause,
  partitionName,
} from '../database/monthly-partitions';

/** The tables whose months are dropped whole; seals are kept, so that verification outlives a purge. */
const PARTITIONED_TABLES = ['access_records', 'access_record_ends'] as const;

/** The first month kept: records of earlier months are past ACCESS_RECORD_RETENTION. */
const firstMonthKept = (now: Date, retentionMonths: number): string => addMonths(monthOf(now), -retentionMonths);

export interface PurgeResult {
  dropped: string[];
  added: string[];
}

/** docs/OPERATIONS.md: months past retention dropped whole, and the coming months made, on MySQL by partition. */
export class PartitionMaintenance {
  constructor(private readonly dataSource: DataSource) {}

  private get isMysql(): boolean {
    return this.dataSource.options.type === 'mysql';
  }

  /** The months that have a partition, oldest first; none on the embedded database. */
  async months(table: string = PARTITIONED_TABLES[0]): Promise<string[]> {
    if (!this.isMysql) return [];
    const rows: { name: string }[] = await this.dataSource.query(
      'SELECT PARTITION_NAME AS name FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?',
      [table],
    );
    return rows.flatMap(({ name }) => monthOfPartition(String(name)) ?? []).sort();
  }

  /** What verification may find gone whole: months before both the oldest partition and the retention. */
  async oldestKeptMonth(now: Date, retentionMonths: number): Promise<string> {
    const cutoff = firstMonthKept(now, retentionMonths);
    const [oldest] = await this.months();
    return oldest !== undefined && oldest < cutoff ? oldest : cutoff;
  }

  async purge(now: Date, retentionMonths: number): Promise<PurgeResult> {
    const cutoff = firstMonthKept(now, retentionMonths);
    if (!this.isMysql) {
      // The embedded database is for development: it has no partitions, and deletes the rows.
      for (const table of PARTITIONED_TABLES) {
        await this.dataSource.query(`DELETE FROM ${table} WHERE recorded_at < ?`, [`${cutoff}-01 00:00:00`]);
      }
      return { dropped: [], added: [] };
    }
    const result: PurgeResult = { dropped: [], added: [] };
    for (const table of PARTITIONED_TABLES) {
      const months = await this.months(table);
      const past = months.filter((month) => month < cutoff);
      if (past.length > 0) {
        await this.dataSource.query(`ALTER TABLE ${table} DROP PARTITION ${past.map(partitionName).join(', ')}`);
      }
      const last = months.at(-1) ?? addMonths(monthOf(now), -1);
      const coming = monthsBetween(addMonths(last, 1), addMonths(monthOf(now), MONTHS_AHEAD));
      if (coming.length > 0) {
        await this.dataSource.query(
          `ALTER TABLE ${table} REORGANIZE PARTITION pfuture INTO (${coming.map(partitionClause).join(', ')}, ` +
            'PARTITION pfuture VALUES LESS THAN (MAXVALUE))',
        );
      }
      result.dropped = past;
      result.added = coming;
    }
    return result;
  }
}
