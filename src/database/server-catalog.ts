import type { RowDataPacket } from 'mysql2/promise';

/** What one server holds, as routing needs it: each table's indexes (a replica's differ) and about how many rows. */
export interface ServerCatalog {
  /** Whether this is the embedded database, which holds demo data that any plan reads at once. */
  readonly embedded: boolean;
  indexes(table: string): ReadonlySet<string>;
  /** The server's own estimate (InnoDB's statistics: within a few tens of percent); Infinity while unknown. */
  estimatedRows(table: string): number;
  /** Whether a transaction's statements read one snapshot, as a bounded walk needs (docs/adr/0020). */
  readonly readsOneSnapshot: boolean;
}

const NONE: ReadonlySet<string> = new Set();

/** The catalog of a server not read yet: nothing known beyond what the schema guarantees, every table taken as large. */
export const UNKNOWN_CATALOG: ServerCatalog = {
  embedded: false,
  indexes: () => NONE,
  estimatedRows: () => Number.POSITIVE_INFINITY,
  readsOneSnapshot: false,
};

export const EMBEDDED_CATALOG: ServerCatalog = {
  embedded: true,
  indexes: () => NONE,
  estimatedRows: () => 0,
  // One connection, one statement at a time; nothing the listing plans there reads a snapshot across statements.
  readsOneSnapshot: false,
};

/** One statement, to the server's own information schema, which shows only what the service's user may read. */
export const CATALOG_STATEMENT = `
  SELECT t.TABLE_NAME AS tableName, t.TABLE_ROWS AS estimatedRows, s.INDEX_NAME AS indexName
  FROM information_schema.TABLES t
  LEFT JOIN information_schema.STATISTICS s
    ON s.TABLE_SCHEMA = t.TABLE_SCHEMA AND s.TABLE_NAME = t.TABLE_NAME AND s.SEQ_IN_INDEX = 1
  WHERE t.TABLE_SCHEMA = DATABASE()`;

/** The sessions' isolation, by whichever name the server has (`tx_isolation` or `transaction_isolation`). */
export const ISOLATION_STATEMENT = `SHOW VARIABLES WHERE Variable_name IN ('tx_isolation', 'transaction_isolation')`;

export interface IsolationRow extends RowDataPacket {
  Variable_name: string;
  Value: string;
}

const ONE_SNAPSHOT_LEVELS = new Set(['REPEATABLE-READ', 'SERIALIZABLE']);

function readsOneSnapshot([row]: readonly IsolationRow[]): boolean {
  return row !== undefined && ONE_SNAPSHOT_LEVELS.has(String(row.Value).toUpperCase());
}

/** Told where sessions read below REPEATABLE READ: no day bounds are read there, and walks pass a sale's orders. */
export function isolationWarning(server: string, isolation: readonly IsolationRow[]): string | undefined {
  const [row] = isolation;
  if (!row || readsOneSnapshot(isolation)) return undefined;
  return (
    `${server} starts its sessions at ${row.Value} (${row.Variable_name}): a listing's count and page cannot read one ` +
    `snapshot there, so no walk is bounded by its days' orders; set ${row.Variable_name} back to REPEATABLE-READ`
  );
}

export interface CatalogRow extends RowDataPacket {
  tableName: string;
  estimatedRows: number | string | null;
  indexName: string | null;
}

export function catalogOf(rows: readonly CatalogRow[], isolation: readonly IsolationRow[]): ServerCatalog {
  const indexes = new Map<string, Set<string>>();
  const sizes = new Map<string, number>();
  for (const { tableName, estimatedRows, indexName } of rows) {
    const names = indexes.get(tableName) ?? new Set<string>();
    if (indexName !== null) names.add(indexName);
    indexes.set(tableName, names);
    sizes.set(tableName, Number(estimatedRows ?? 0));
  }
  return {
    embedded: false,
    indexes: (table) => indexes.get(table) ?? NONE,
    estimatedRows: (table) => sizes.get(table) ?? Number.POSITIVE_INFINITY,
    readsOneSnapshot: readsOneSnapshot(isolation),
  };
}
