import type { RowDataPacket } from 'mysql2/promise';

/** How many threads a replica applies the primary's writes with (docs/adr/0018): MariaDB's variable, then MySQL
 * 8's. Each server knows only its own name and refuses the other's as an unknown system variable. */
const APPLIER_VARIABLES = ['slave_parallel_threads', 'replica_parallel_workers'] as const;

type ApplierVariable = (typeof APPLIER_VARIABLES)[number];

export interface Appliers {
  variable: ApplierVariable;
  threads: number;
}

/** `@@gtid_binlog_pos` on MySQL, `@@replica_parallel_workers` on MariaDB: a name this server does not have. */
export const ER_UNKNOWN_SYSTEM_VARIABLE = 1193;

/** Reads a replica's applier threads with `query` (its check connection); undefined where neither name is known. */
export async function readAppliers(query: (sql: string) => Promise<RowDataPacket[]>): Promise<Appliers | undefined> {
  for (const variable of APPLIER_VARIABLES) {
    try {
      const [row] = await query(`SELECT @@global.${variable} AS threads`);
      return { variable, threads: Number(row?.threads ?? 0) };
    } catch (error) {
      if ((error as { errno?: number }).errno !== ER_UNKNOWN_SYSTEM_VARIABLE) throw error;
    }
  }
  return undefined;
}

/** Told, naming the variable, of a replica that applies with one thread (0 and 1 both mean one): it applies a sale
 * slower than the primary takes it, and falls further behind every second. */
export function singleApplierWarning(server: string, { variable, threads }: Appliers): string | undefined {
  if (threads > 1) return undefined;
  return (
    `${server} applies the primary's writes with a single thread (${variable}=${threads}): it falls behind a sale ` +
    `taken at the primary's full speed; run it with deploy/mariadb/replica.cnf, which sets ${variable} to 4`
  );
}
