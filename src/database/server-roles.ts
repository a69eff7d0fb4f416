/** What a server says of its role: whether it takes writes, whether it replicates, and whom it follows. */
export interface RoleReport {
  name: string;
  answering: boolean;
  /** `@@server_id`; for a server that does not answer, the one it last reported. */
  serverId?: number;
  /** Which physical server answers: MySQL's `@@server_uuid`, else (MariaDB has none) its `@@server_id`. */
  identity?: string;
  writable?: boolean;
  replicating?: boolean;
  /** The `@@server_id` of the server it replicates from (`Master_Server_Id`); undefined when it follows none. */
  follows?: number;
}

/** What every server is asked of its role; `super_read_only` on MySQL turns `read_only` on with it. */
export const ROLE_STATEMENT = 'SELECT @@global.read_only AS readOnly, @@server_id AS serverId';
/** What a MySQL server adds: a UUID of its own, unlike `@@server_id`, which an operator may reuse. */
export const MYSQL_IDENTITY = ', @@server_uuid AS serverUuid';

export interface RoleRow {
  readOnly: number | string;
  serverId: number | string;
  serverUuid?: string;
}

/** The columns of SHOW REPLICA STATUS that tell whom a server follows, as MariaDB and MySQL name them. */
export interface ReplicaStatus {
  Slave_IO_Running?: string;
  Slave_SQL_Running?: string;
  Replica_IO_Running?: string;
  Replica_SQL_Running?: string;
  Master_Server_Id?: number | string;
  Source_Server_Id?: number | string;
}

/** Both replication threads' states, whether both run, and the `@@server_id` followed; none without a status row. */
export function replicationOf(status: ReplicaStatus | undefined): {
  io?: string;
  sql?: string;
  replicating: boolean;
  follows?: number;
} {
  if (!status) return { replicating: false };
  const io = status.Slave_IO_Running ?? status.Replica_IO_Running;
  const sql = status.Slave_SQL_Running ?? status.Replica_SQL_Running;
  const follows = Number(status.Master_Server_Id ?? status.Source_Server_Id ?? 0) || undefined;
  return { io, sql, replicating: io === 'Yes' && sql === 'Yes', follows };
}

/** A server's role from its answer to ROLE_STATEMENT and, where it was read, its replication status. */
export function roleFrom(
  row: RoleRow,
  replication?: { replicating: boolean; follows?: number },
): Omit<RoleReport, 'name' | 'answering'> {
  return {
    serverId: Number(row.serverId),
    identity: row.serverUuid ? String(row.serverUuid) : String(row.serverId),
    writable: Number(row.readOnly) === 0,
    replicating: replication?.replicating ?? false,
    follows: replication?.follows,
  };
}

/** Not current, and when another server is the primary by what the servers say, which one to follow instead. */
export type PrimaryVerdict = { current: true } | { current: false; why: string; successor?: string };

const takesWrites = (server: RoleReport) => server.answering && server.writable === true && !server.replicating;
const followers = (others: readonly RoleReport[]) =>
  others.filter((server) => server.answering && server.follows !== undefined && server.follows !== 0);

/** Replicas that answer: a replica may follow one of them (a chain). */
const chainOf = (others: readonly RoleReport[]) =>
  new Set(others.filter((server) => server.answering && server.replicating).map((server) => server.serverId));

/** The one other writable server every answering replica follows (or a chain): a promotion HA tooling made. */
function successorAmong(
  others: readonly RoleReport[],
  formerIds: ReadonlySet<number | undefined>,
  deposed: ReadonlySet<number>,
): string | undefined {
  const followed = (server: RoleReport) => followers(others).some((replica) => replica.follows === server.serverId);
  const writable = others.filter(
    (server) =>
      takesWrites(server) && (server.serverId === undefined || !deposed.has(server.serverId) || followed(server)),
  );
  if (writable.length !== 1 || writable[0].serverId === undefined) return undefined;
  const [promoted] = writable;
  const chain = chainOf(others);
  const accepted = (id: number | undefined) => id === promoted.serverId || formerIds.has(id) || chain.has(id);
  return followers(others).every((replica) => accepted(replica.follows)) ? promoted.name : undefined;
}

/** Whether the followed primary is the primary, by what every server says, and which to follow when not. */
export function primaryVerdict(
  primary: RoleReport,
  others: readonly RoleReport[],
  deposed: ReadonlySet<number> = new Set(),
): PrimaryVerdict {
  const formerIds = new Set([primary.serverId, ...others.filter((server) => !server.answering).map((s) => s.serverId)]);
  if (!primary.answering) {
    const successor = successorAmong(others, formerIds, deposed);
    return successor ? { current: false, why: 'not answering', successor } : { current: true };
  }
  if (primary.writable === false || primary.replicating) {
    const why = primary.replicating
      ? `replicating from server ${primary.follows}: not the primary`
      : 'read-only: demoted, not the primary';
    return { current: false, why, successor: successorAmong(others, formerIds, deposed) };
  }
  // The same server reached at two addresses (a moving address and its server) is one server, not two.
  const rivals = others.filter(
    (server) =>
      takesWrites(server) &&
      server.serverId !== primary.serverId &&
      (server.serverId === undefined || !deposed.has(server.serverId)),
  );
  const leaders = new Set([primary.serverId, ...rivals.map((s) => s.serverId), ...chainOf(others)]);
  const stranger = followers(others).find((replica) => !leaders.has(replica.follows));
  if (stranger && primary.serverId !== undefined) {
    return {
      current: false,
      why: `${stranger.name} replicates from server ${stranger.follows}, not from this one (${primary.serverId}): deposed`,
    };
  }
  if (rivals.length === 0) return { current: true };
  const followed = (server: RoleReport) => followers(others).some((replica) => replica.follows === server.serverId);
  // Of two writable servers, the one the replicas follow is the primary; an old primary back writable is not.
  const chosen = [primary, ...rivals].filter(followed);
  if (chosen.length === 1) {
    if (chosen[0] === primary) return { current: true };
    return { current: false, why: `the replicas follow ${chosen[0].name}: deposed`, successor: chosen[0].name };
  }
  return {
    current: false,
    why: `${rivals[0].name} takes writes too and replicates from nothing: two writable servers, neither trusted`,
  };
}
