import type { GtidPosition } from './replication-lag';
import type { RoleReport } from './server-roles';

/** What the last background check found about a server. */
export interface ServerHealth {
  answering: boolean;
  /** Replicas: both replication threads running. */
  replicating: boolean;
  /** Replicas: seconds behind the primary, when it could be told. */
  lagSeconds?: number;
  /** How far the server has applied the primary's transactions (MariaDB GTID). */
  position?: GtidPosition;
  /** Why it is not answering or not replicating, for the log. */
  problem?: string;
  /** What the server says of its own role; the embedded database takes writes and has no id. */
  role?: Omit<RoleReport, 'name' | 'answering'>;
}

/** What routing makes of a server, as its log lines name it: each change is logged once. */
export type ServerState = 'up' | 'down' | 'healthy' | 'stopped' | 'lagging';

interface Observed {
  answering: boolean;
  lagSeconds?: number;
  problem?: string;
  isPrimary: boolean;
  healthyReplica: boolean;
  maxLagSeconds: number;
}

/** A server's state, and what its log line says of it. */
export function serverStateOf(observed: Observed): { state: ServerState; detail: string } {
  const { answering, lagSeconds, problem, isPrimary, healthyReplica, maxLagSeconds } = observed;
  if (!answering) return { state: 'down', detail: `not answering (${problem}); not read from until it answers again` };
  if (isPrimary) return { state: 'up', detail: 'answering' };
  if (healthyReplica) {
    return { state: 'healthy', detail: `healthy (${lagSeconds?.toFixed(1)} s behind); reads go to it` };
  }
  if (problem) return { state: 'stopped', detail: `answering but not replicating (${problem}); not read from` };
  return {
    state: 'lagging',
    detail:
      lagSeconds === undefined
        ? 'lag unknown (the primary has not been seen); not read from'
        : `${lagSeconds.toFixed(1)} s behind, past DB_REPLICA_MAX_LAG_S=${maxLagSeconds}; not read from`,
  };
}
