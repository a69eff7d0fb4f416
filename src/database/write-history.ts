import { MYSQL_GTID_DIALECT, type GtidDialect, type ReplicationPosition } from './gtid';

/** The primary's history by origin (MariaDB's last transaction per server and domain, MySQL's executed set by UUID):
 * a position keeps its server part, so a lost write is never taken for one whose sequence was since passed. */
export type WriteHistory =
  | { readonly flavour: 'mariadb'; readonly server: string; readonly last: ReadonlyMap<string, number> }
  | { readonly flavour: 'mysql'; readonly server: string; readonly executed: ReplicationPosition };

/** Held: the primary has the write. Ahead: no commit made it. Lost: written by a server whose later writes are gone. */
export type WriteVerdict = 'held' | 'ahead' | 'lost';

/** One statement, reading no table: the server's own id, then what it holds by origin. */
export const HISTORY_STATEMENTS: Record<GtidDialect['flavour'], string> = {
  mariadb: "SELECT CONCAT_WS(';', @@server_id, @@global.gtid_binlog_state, @@global.gtid_slave_pos) AS history",
  mysql: "SELECT CONCAT_WS(';', @@server_uuid, @@global.gtid_executed) AS history",
};

const triples = (text: string): Array<[domain: string, server: string, sequence: number]> =>
  text
    .split(/[,;]/)
    .map((gtid) => gtid.trim().split('-'))
    .filter((parts) => parts.length === 3)
    .map(([domain, server, sequence]) => [domain, server, Number(sequence)]);

/** The history statement's answer; undefined when it is not one. */
export function parseHistory(flavour: GtidDialect['flavour'], text: string): WriteHistory | undefined {
  const [server, ...held] = text.split(';');
  if (!server) return undefined;
  if (flavour === 'mysql') {
    const executed = MYSQL_GTID_DIALECT.parse(held.join(','));
    return executed && { flavour, server: server.toLowerCase(), executed };
  }
  const last = new Map<string, number>();
  for (const [domain, origin, sequence] of triples(held.join(','))) {
    const key = `${domain}-${origin}`;
    last.set(key, Math.max(last.get(key) ?? 0, sequence));
  }
  return { flavour, server, last };
}

/** Whether the primary's history holds a writer's position, or why not. */
export function writeVerdict(history: WriteHistory, target: ReplicationPosition): WriteVerdict {
  let verdict: WriteVerdict = 'held';
  const worse = (found: WriteVerdict) => {
    if (found === 'lost' || verdict === 'held') verdict = found;
  };
  if (history.flavour === 'mariadb' && target.flavour === 'mariadb') {
    for (const [domain, origin, sequence] of triples(target.text)) {
      const last = history.last.get(`${domain}-${origin}`);
      if (last !== undefined && last >= sequence) continue;
      // Another server's write that this history knows the server of, but not this far: gone with that server.
      worse(last !== undefined && origin !== history.server ? 'lost' : 'ahead');
    }
    return verdict;
  }
  if (history.flavour === 'mysql' && target.flavour === 'mysql') {
    const executed: ReadonlyMap<string, readonly (readonly [number, number])[]> =
      history.executed.flavour === 'mysql' ? history.executed.set : new Map();
    for (const [source, ranges] of target.set) {
      const held = executed.get(source) ?? [];
      if (ranges.every(([start, end]) => held.some(([from, to]) => from <= start && end <= to))) continue;
      worse(held.length > 0 && !source.startsWith(history.server) ? 'lost' : 'ahead');
    }
    return verdict;
  }
  return 'ahead';
}

/** Whether a replica that applied `position` proves its primary holds it. MySQL names each transaction by its source.
 * MariaDB keeps a sequence per domain, which a lost write of another server can share, so only `primaryServerId`'s
 * own writes are proven so. */
export function provenByFollower(position: ReplicationPosition, primaryServerId: number): boolean {
  if (position.flavour === 'mysql') return true;
  return triples(position.text).every(([, origin]) => origin === String(primaryServerId));
}
