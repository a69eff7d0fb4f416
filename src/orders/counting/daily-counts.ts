import type { DataSource } from 'typeorm';

/** Orders per UTC day and status, as folded so far (migrations AddDailyOrderCounts, CountChangesOffTheWritePath). */
export const DAILY_COUNTS_TABLE = 'order_daily_counts';
/** Each order added to or taken from a (day, status), appended by the triggers, until it is folded into the totals. */
export const COUNT_CHANGES_TABLE = 'order_count_changes';
/** Each status change of an order, appended by the update trigger until folded: -1 for the left, +1 for the reached. */
export const COUNT_MOVES_TABLE = 'order_count_moves';

export const PENDING_ROWS = `SELECT (SELECT COUNT(*) FROM ${COUNT_CHANGES_TABLE}) + (SELECT COUNT(*) FROM ${COUNT_MOVES_TABLE})`;

/** Empties both tables of counting rows, once they are folded. */
export const EMPTY_PENDING: Record<'mysql' | 'sqlite', string[]> = {
  // TRUNCATE is instant where DELETE would log every row.
  mysql: [COUNT_CHANGES_TABLE, COUNT_MOVES_TABLE].map((table) => `TRUNCATE TABLE ${table}`),
  sqlite: [COUNT_CHANGES_TABLE, COUNT_MOVES_TABLE].map((table) => `DELETE FROM ${table}`),
};

/** The totals' columns holding their orders' lowest and highest id and concert id: they only widen (docs/adr/0020). */
export const BOUND_COLUMNS = ['first_id', 'last_id', 'lowest_concert_id', 'highest_concert_id'] as const;
const WIDENS_BY = {
  first_id: 'LEAST',
  last_id: 'GREATEST',
  lowest_concert_id: 'LEAST',
  highest_concert_id: 'GREATEST',
};

/** An upsert's assignments that add a row's count to the totals and widen their bounds by its own. */
export function addedAndWidened(dialect: 'mysql' | 'sqlite'): string {
  const incoming = (column: string) => (dialect === 'mysql' ? `VALUES(${column})` : `excluded.${column}`);
  // SQLite's two-argument min and max are MySQL's LEAST and GREATEST: NULL where either is.
  const widen = (column: (typeof BOUND_COLUMNS)[number]) => {
    const fn = dialect === 'mysql' ? WIDENS_BY[column] : WIDENS_BY[column] === 'LEAST' ? 'min' : 'max';
    return `${column} = COALESCE(${fn}(${column}, ${incoming(column)}), ${column}, ${incoming(column)})`;
  };
  return [`orders = orders + ${incoming('orders')}`, ...BOUND_COLUMNS.map(widen), 'widened = widened + 1'].join(', ');
}

/** The statement that adds every counting row to the totals at once, each move as its two changes. */
export function foldEverything(dialect: 'mysql' | 'sqlite'): string {
  return `
    INSERT INTO ${DAILY_COUNTS_TABLE} (day, status, orders, ${BOUND_COLUMNS.join(', ')}, widened)
    SELECT day, status, SUM(delta), MIN(order_id), MAX(order_id), MIN(concert_id), MAX(concert_id), 1 FROM (
      SELECT day, status, delta, order_id, concert_id FROM ${COUNT_CHANGES_TABLE}
      UNION ALL SELECT day, from_status, -1, NULL, NULL FROM ${COUNT_MOVES_TABLE}
      UNION ALL SELECT day, to_status, 1, order_id, concert_id FROM ${COUNT_MOVES_TABLE}
    ) pending WHERE true GROUP BY day, status
    ${dialect === 'mysql' ? 'ON DUPLICATE KEY UPDATE' : 'ON CONFLICT (day, status) DO UPDATE SET'} ${addedAndWidened(dialect)}`;
}

/** Folds every counting row in a few statements, for a database nobody else uses meanwhile (after a bulk load). */
export async function foldAllChanges(dataSource: DataSource): Promise<void> {
  const dialect = dataSource.options.type === 'mysql' ? 'mysql' : 'sqlite';
  await dataSource.query(foldEverything(dialect));
  for (const statement of EMPTY_PENDING[dialect]) await dataSource.query(statement);
}
