import { Injectable } from '@nestjs/common';
import type { DatabaseServer } from './database-server';
import { DatabaseServers } from './database-servers';
import { progressOf } from './replication-lag';
import type { ServerCatalog } from './server-catalog';

/** What a server must hold to answer in time: any one of `anyIndexOf` on `table`, or at most `sortsWholeUpTo` rows. */
export interface ServerRequirement {
  readonly table: string;
  readonly anyIndexOf: readonly string[];
  readonly sortsWholeUpTo: number;
  /** Whether a server whose indexes were not read yet counts as holding one: those the schema gives every server. */
  readonly heldBeforeRead: boolean;
}

type Requirement = ServerRequirement | undefined;

export function holds(catalog: ServerCatalog, requirement: Requirement): boolean {
  if (requirement === undefined || catalog.embedded) return true;
  const { table, anyIndexOf, sortsWholeUpTo, heldBeforeRead } = requirement;
  if (catalog.estimatedRows(table) <= sortsWholeUpTo) return true;
  const held = catalog.indexes(table);
  return held.size === 0 ? heldBeforeRead : anyIndexOf.some((name) => held.has(name));
}

/** No server serving now holds what the request needs: refused before any statement. */
export class NoCapableServerException extends Error {
  constructor() {
    super('No server serving now holds what this request needs');
  }
}

/** Every replica that holds what the request needs is past DB_REPLICA_MAX_STALENESS_S, or silent. */
export class ReplicasBehindError extends Error {
  constructor(
    readonly behindSeconds: number | undefined,
    readonly maxStalenessSeconds: number,
  ) {
    super('Every replica that holds what this request needs is too far behind, or not answering');
  }
}

/** The server a unit of work reads from, and how far behind it is when it is a replica chosen past the lag bound. */
export interface Choice {
  server: DatabaseServer;
  behindSeconds?: number;
}

/** Which server serves a read. */
@Injectable()
export class ServerChoice {
  private nextReplica = 0;

  constructor(private readonly servers: DatabaseServers) {}

  first(required: Requirement): Choice {
    const capable = this.capableOf(required);
    return capable.length > 0 ? { server: this.among(capable) } : this.leastBehind(required);
  }

  /** Where a unit of work that failed on `failed` is retried: `failed` itself when there is nowhere else. */
  second(required: Requirement, failed: DatabaseServer): DatabaseServer {
    const capable = this.capableOf(required);
    return capable.length > 0 ? this.among(capable, failed) : failed;
  }

  /** Whether a server other than `server` could answer, so that a first attempt there may give up early. */
  hasOtherThan(server: DatabaseServer, required: Requirement): boolean {
    return this.servers.all.some((other) => other !== server && other.canRead() && holds(other.catalog, required));
  }

  /** docs/API.md §18: the least-behind replica that answers, within DB_REPLICA_MAX_STALENESS_S. */
  private leastBehind(required: Requirement): Choice {
    const holders = this.servers.replicas.filter((replica) => holds(replica.catalog, required));
    if (holders.length === 0) throw new NoCapableServerException();
    let least: Choice | undefined;
    for (const server of holders) {
      const behindSeconds = server.canRead() ? server.behindSeconds() : undefined;
      if (behindSeconds !== undefined && (least === undefined || behindSeconds < least.behindSeconds!)) {
        least = { server, behindSeconds };
      }
    }
    const { replicaMaxStalenessSeconds } = this.servers;
    if (!least || least.behindSeconds! > replicaMaxStalenessSeconds) {
      throw new ReplicasBehindError(least?.behindSeconds, replicaMaxStalenessSeconds);
    }
    return least;
  }

  /** Every server holding what the request needs when the primary does; otherwise only the healthy replicas that do. */
  private capableOf(required: Requirement): DatabaseServer[] {
    const { primary, replicas } = this.servers;
    if (holds(primary.catalog, required)) return this.servers.all.filter((server) => holds(server.catalog, required));
    return replicas.filter((replica) => replica.isHealthyReplica() && holds(replica.catalog, required));
  }

  private among(servers: readonly DatabaseServer[], excluded?: DatabaseServer): DatabaseServer {
    const { primary } = this.servers;
    const replicas = servers.filter((server) => !server.isPrimary);
    const hasPrimary = servers.includes(primary);
    if (replicas.length === 0 && hasPrimary) return primary;
    const candidates = replicas.filter((replica) => replica !== excluded);
    const healthy = candidates.filter((replica) => replica.isHealthyReplica());
    if (healthy.length > 0) {
      this.nextReplica = (this.nextReplica + 1) % healthy.length;
      return healthy[this.nextReplica];
    }
    if (hasPrimary && primary !== excluded && primary.health.answering) return primary;
    const answering = candidates.filter((replica) => replica.canRead());
    if (answering.length > 0) {
      return answering.reduce((best, replica) =>
        progressOf(replica.health.position ?? new Map()) > progressOf(best.health.position ?? new Map())
          ? replica
          : best,
      );
    }
    // Nothing is known to answer: the primary's own failure is the most truthful answer.
    return hasPrimary ? primary : (excluded ?? servers[0]);
  }
}
