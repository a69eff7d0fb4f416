import type { RowDataPacket } from 'mysql2/promise';

/**
 * What one server holds, as routing needs to know it (docs/API.md §14): the
 * indexes of each table, which may differ between a primary and its replicas,
 * and about how many rows each table holds. Read in the background, never on
 * a request's path.
 */
export interface ServerCatalog {
  /** Whether this is the embedded database, which holds demo data that any plan reads at once. */
  readonly embedded: boolean;
  indexes(table: string): ReadonlySet<string>;
  /** The server's own estimate (InnoDB's statistics: within a few tens of percent); Infinity while unknown. */
  estimatedRows(table: string): number;
  /**
   * Whether a transaction's statements read one snapshot at its sessions' isolation (REPEATABLE READ, the servers'
   * default, or SERIALIZABLE): what a walk within its days' bounds needs (docs/adr/0020). False while unknown.
   */
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

/**
 * The isolation the server's sessions start with: MariaDB 10.11 names it `tx_isolation`, MySQL 8 `transaction_isolation`
 * (later MariaDB both); `SHOW VARIABLES` answers whichever the server has, where a `SELECT @@` of the other would fail.
 */
export const ISOLATION_STATEMENT = `SHOW VARIABLES WHERE Variable_name IN ('tx_isolation', 'transaction_isolation')`;

export interface IsolationRow extends RowDataPacket {
  Variable_name: string;
  Value: string;
}

const ONE_SNAPSHOT_LEVELS = new Set(['REPEATABLE-READ', 'SERIALIZABLE']);

function readsOneSnapshot([row]: readonly IsolationRow[]): boolean {
  return row !== undefined && ONE_SNAPSHOT_LEVELS.has(String(row.Value).toUpperCase());
}

/**
 * What operators are told where a server's sessions read below REPEATABLE READ: the listing then reads no day bounds
 * there, and the walks they spare pass a sale's orders again (docs/adr/0020).
 */
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
