import type { DataSource } from 'typeorm';

/** Orders per UTC day and status, as folded so far (migrations AddDailyOrderCounts, CountChangesOffTheWritePath). */
export const DAILY_COUNTS_TABLE = 'order_daily_counts';
/** Each change of an order's (day, status), appended by the triggers, until it is folded into the totals. */
export const COUNT_CHANGES_TABLE = 'order_count_changes';

/**
 * Folds every change into the totals in two statements: for a database that
 * nobody else reads or writes meanwhile (after a bulk load). A running
 * service folds in batches instead (OrderCountFolding).
 */
export async function foldAllChanges(dataSource: DataSource): Promise<void> {
  const mysql = dataSource.options.type === 'mysql';
  // SQLite needs the WHERE, or it reads the upsert clause as the ON of a join.
  await dataSource.query(`
    INSERT INTO ${DAILY_COUNTS_TABLE} (day, status, orders)
    SELECT day, status, SUM(delta) FROM ${COUNT_CHANGES_TABLE} WHERE true GROUP BY day, status
    ${mysql ? 'ON DUPLICATE KEY UPDATE orders = orders + VALUES(orders)' : 'ON CONFLICT (day, status) DO UPDATE SET orders = orders + excluded.orders'}`);
  await dataSource.query(mysql ? `TRUNCATE TABLE ${COUNT_CHANGES_TABLE}` : `DELETE FROM ${COUNT_CHANGES_TABLE}`);
}
