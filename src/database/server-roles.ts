/**
 * What a server says of its own role, read by each health check: whether it takes writes (`@@read_only` off; on
 * MySQL `super_read_only` turns `read_only` on with it), whether it replicates, and whom it follows.
 */
export interface RoleReport {
  name: string;
  answering: boolean;
  /** `@@server_id`. */
  serverId?: number;
  writable?: boolean;
  /** Both replication threads run. */
  replicating?: boolean;
  /** The `@@server_id` of the server it replicates from (`Master_Server_Id`); undefined when it follows none. */
  follows?: number;
}

export type PrimaryVerdict = { current: true } | { current: false; why: string };

/**
 * docs/API.md §20: whether the configured primary is the primary, from what every server says of itself. It is not
 * when it is read-only or replicates (demoted), when the replicas follow another server (deposed), or when another
 * server takes writes without replicating (two writable servers: neither is trusted for freshness).
 */
export function primaryVerdict(primary: RoleReport, others: readonly RoleReport[]): PrimaryVerdict {
  if (primary.writable === false) return { current: false, why: 'read-only: demoted, not the primary' };
  if (primary.replicating)
    return { current: false, why: `replicating from server ${primary.follows}: not the primary` };
  const answering = others.filter((server) => server.answering);
  const followed = answering.find(
    (server) => server.follows !== undefined && server.follows !== 0 && server.follows !== primary.serverId,
  );
  if (followed && primary.serverId !== undefined) {
    return {
      current: false,
      why: `${followed.name} replicates from server ${followed.follows}, not from this one (${primary.serverId}): deposed`,
    };
  }
  const rival = answering.find(
    (server) => server.writable === true && !server.replicating && server.serverId !== primary.serverId,
  );
  if (rival) {
    return {
      current: false,
      why: `${rival.name} takes writes too and replicates from nothing: two writable servers, neither trusted`,
    };
  }
  return { current: true };
}
