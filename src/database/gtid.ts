import { hasReached, parseGtidPosition, type GtidPosition } from './replication-lag';

/** A replication position as one kind of server writes it: MariaDB's GTID list or MySQL's GTID set. */
export type ReplicationPosition = AppliedTransactions & { readonly text: string };

/** What a server has applied, as compared here; never sent to a server. */
export type AppliedTransactions =
  | { readonly flavour: 'mariadb'; readonly domains: GtidPosition }
  | { readonly flavour: 'mysql'; readonly set: GtidSet };

/** MySQL: for each source (a server UUID, with its tag on 8.4), the transaction numbers as sorted, disjoint ranges. */
type GtidSet = ReadonlyMap<string, readonly (readonly [number, number])[]>;

type GtidFlavour = AppliedTransactions['flavour'];

/** What one kind of server is asked, and how its answers read (docs/adr/0016). */
export interface GtidDialect {
  readonly flavour: GtidFlavour;
  readonly positionStatement: string;
  readonly waitStatement: string;
  reached(value: unknown): boolean;
  parse(text: string): ReplicationPosition | undefined;
}

/** Both servers answer 0 once the position is applied; a timeout is -1 on MariaDB and 1 on MySQL. */
function reachedOnZero(value: unknown): boolean {
  if (value === null || value === undefined) throw new Error('The replication wait answered NULL');
  return Number(value) === 0;
}

const MARIADB_GTID = /^(\d{1,10})-(\d{1,10})-(\d{1,19})$/;
const UINT32_MAX = 2 ** 32 - 1;

function parseMariadb(text: string): ReplicationPosition | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return { flavour: 'mariadb', text: '', domains: new Map() };
  const domains = new Set<number>();
  for (const gtid of trimmed.split(',')) {
    const match = MARIADB_GTID.exec(gtid.trim());
    if (!match) return undefined;
    const [domain, server, sequence] = match.slice(1).map(Number);
    // One transaction per domain: a list naming a domain twice is no position a server wrote.
    if (domain > UINT32_MAX || server > UINT32_MAX || !Number.isSafeInteger(sequence) || domains.has(domain)) {
      return undefined;
    }
    domains.add(domain);
  }
  return { flavour: 'mariadb', text: trimmed, domains: parseGtidPosition(trimmed) };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TAG = /^[a-z_][a-z0-9_]{0,31}$/;
const INTERVAL = /^(\d{1,19})(?:-(\d{1,19}))?$/;

function normalized(ranges: (readonly [number, number])[]): [number, number][] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const joined: [number, number][] = [];
  for (const [start, end] of sorted) {
    const last = joined.at(-1);
    if (last && start <= last[1] + 1) last[1] = Math.max(last[1], end);
    else joined.push([start, end]);
  }
  return joined;
}

function parseMysql(text: string): ReplicationPosition | undefined {
  const trimmed = text.replace(/\s+/g, '').toLowerCase();
  const set = new Map<string, [number, number][]>();
  if (trimmed === '') return { flavour: 'mysql', text: '', set };
  for (const member of trimmed.split(',')) {
    const [uuid, ...rest] = member.split(':');
    if (!UUID.test(uuid) || rest.length === 0) return undefined;
    let source = uuid;
    let ranges = 0;
    for (const part of rest) {
      const interval = INTERVAL.exec(part);
      if (!interval) {
        // MySQL 8.4: `uuid:tag:1-5` names the tag of the ranges that follow it.
        if (!TAG.test(part)) return undefined;
        source = `${uuid}:${part}`;
        continue;
      }
      const start = Number(interval[1]);
      const end = interval[2] === undefined ? start : Number(interval[2]);
      if (start < 1 || end < start || !Number.isSafeInteger(end)) return undefined;
      set.set(source, [...(set.get(source) ?? []), [start, end]]);
      ranges += 1;
    }
    if (ranges === 0) return undefined;
  }
  for (const [source, ranges] of set) set.set(source, normalized(ranges));
  return { flavour: 'mysql', text: trimmed, set };
}

function setContains(applied: GtidSet, target: GtidSet): boolean {
  for (const [source, wanted] of target) {
    const held = applied.get(source) ?? [];
    for (const [start, end] of wanted) {
      if (!held.some(([from, to]) => from <= start && end <= to)) return false;
    }
  }
  return true;
}

export const MARIADB_GTID_DIALECT: GtidDialect = {
  flavour: 'mariadb',
  positionStatement: 'SELECT @@global.gtid_binlog_pos AS position',
  waitStatement: 'SELECT MASTER_GTID_WAIT(?, ?) AS waited',
  reached: reachedOnZero,
  parse: parseMariadb,
};

export const MYSQL_GTID_DIALECT: GtidDialect = {
  flavour: 'mysql',
  positionStatement: 'SELECT @@global.gtid_executed AS position',
  waitStatement: 'SELECT WAIT_FOR_EXECUTED_GTID_SET(?, ?) AS waited',
  reached: reachedOnZero,
  parse: parseMysql,
};

/** The dialect a server speaks, from its `@@version` (MariaDB says so in it). */
export const gtidDialectOf = (version: string): GtidDialect =>
  /mariadb/i.test(version) ? MARIADB_GTID_DIALECT : MYSQL_GTID_DIALECT;

/** True when a server at `applied` holds every transaction of `target`: domain by domain, or range by range. */
export function contains(applied: AppliedTransactions, target: AppliedTransactions): boolean {
  if (applied.flavour === 'mariadb' && target.flavour === 'mariadb') return hasReached(applied.domains, target.domains);
  if (applied.flavour === 'mysql' && target.flavour === 'mysql') return setContains(applied.set, target.set);
  return false;
}

/** Everything two positions a server has applied hold between them: it has applied that too. */
export function union(a: AppliedTransactions, b: AppliedTransactions): AppliedTransactions {
  if (a.flavour === 'mariadb' && b.flavour === 'mariadb') {
    const domains = new Map(a.domains);
    for (const [domain, sequence] of b.domains) domains.set(domain, Math.max(domains.get(domain) ?? 0, sequence));
    return { flavour: 'mariadb', domains };
  }
  if (a.flavour === 'mysql' && b.flavour === 'mysql') {
    const set = new Map<string, [number, number][]>();
    for (const source of new Set([...a.set.keys(), ...b.set.keys()])) {
      set.set(source, normalized([...(a.set.get(source) ?? []), ...(b.set.get(source) ?? [])]));
    }
    return { flavour: 'mysql', set };
  }
  return b;
}
