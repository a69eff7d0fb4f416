import { Injectable } from '@nestjs/common';
import { Clock } from '../common/time/clock';
import type { DatabaseServer } from './database-server';
import { DatabaseServers } from './database-servers';
import type { GtidDialect, ReplicationPosition } from './gtid';
import { PrimaryPositions } from './primary-positions';
import type { ReadSession } from './read-session';
import { provenByFollower, writeVerdict, type WriteVerdict } from './write-history';

/** How a read was served, as `orders_listing_reads_total` counts them. */
const SERVED_BY = [
  'primary',
  'replica',
  'replica-after-wait',
  'writer-position',
  'primary-after-wait',
  'stale',
] as const;
export type ServedBy = (typeof SERVED_BY)[number];

/** A writer's position that is not one the servers write (another kind of server's, or no position at all). */
export class MalformedPositionError extends Error {
  constructor() {
    super('a position of another kind of database server than these');
  }
}

/** A writer's position the primary has not reached: no commit made it. */
export class UncommittedPositionError extends Error {
  constructor() {
    super('ahead of the primary: no commit has reached this position');
  }
}

/** A writer's position of a write the primary's history does not hold: lost with the server that took it. */
export class LostPositionError extends Error {
  constructor() {
    super('a write the current primary does not hold: it was lost when the primary changed');
  }
}

/** What a replica must have applied before it serves; `unchecked`: a writer's position no server is shown to hold. */
export type Target = { position: ReplicationPosition; fromWriter: boolean; unchecked?: false } | { unchecked: true };

const UNCHECKED: Target = { unchecked: true };

/** The least a read not shown current may be behind, so that `Data-Staleness` never says 0 of such a read. */
const MIN_STALENESS_S = 0.001;

/** Whether a read is current (undefined), at most so many seconds behind, or better served by the primary. */
export type Verdict = number | undefined | 'primary-serves';

/** docs/API.md §19: what a read must reflect, and whether the server chosen does. */
@Injectable()
export class Freshness {
  private readonly positions: PrimaryPositions;
  readonly served = Object.fromEntries(SERVED_BY.map((by) => [by, 0])) as Record<ServedBy, number>;

  constructor(
    private readonly servers: DatabaseServers,
    clock: Clock,
  ) {
    this.positions = new PrimaryPositions(servers, clock);
  }

  /** The position `server` must have applied to serve: the writer's, else the primary's as of now. */
  async targetOf(server: DatabaseServer, writerPosition: string | undefined): Promise<Target | undefined> {
    const { primary } = this.servers;
    if (writerPosition !== undefined) {
      const dialect = await this.dialect();
      if (!dialect) return UNCHECKED;
      const position = dialect.parse(writerPosition);
      if (!position) throw new MalformedPositionError();
      if (this.servers.replicas.length === 0) return { position, fromWriter: true };
      // A replica of the followed primary that applied it shows the primary holds it: the primary is not asked.
      if (this.provenHeld(server, position)) return { position, fromWriter: true };
      if (!primary.health.answering) return UNCHECKED;
      const verdict = await this.historyVerdict(position);
      if (!verdict) return UNCHECKED;
      if (verdict === 'ahead') throw new UncommittedPositionError();
      if (verdict === 'lost') throw new LostPositionError();
      return { position, fromWriter: true };
    }
    if (server.isPrimary || !primary.health.answering) return undefined;
    try {
      return { position: await this.positions.read(), fromWriter: false };
    } catch {
      // The primary's failure is its health check's to find; this read cannot be shown current.
      return undefined;
    }
  }

  /** Whether the session's server has applied the target, waiting on its connection up to DB_REPLICA_WAIT_MS. */
  async verdict(
    server: DatabaseServer,
    session: ReadSession,
    target: Target | undefined,
    primaryServes: boolean,
  ): Promise<Verdict> {
    if (server.isPrimary) return target?.unchecked ? this.stale(MIN_STALENESS_S) : this.current('primary');
    const mayBeBehind = () => Math.max(server.behindSeconds() ?? 0, session.behindSeconds ?? 0, MIN_STALENESS_S);
    if (!target || target.unchecked) return this.stale(mayBeBehind());
    const known = server.hasApplied(target.position);
    if (!known) {
      if (!(await session.waitFor(this.positions.dialect!, target.position, this.servers.replicaWaitMs))) {
        return primaryServes ? 'primary-serves' : this.stale(mayBeBehind());
      }
      server.recordApplied(target.position);
    }
    // A writer's position shows that write, not every write the primary had when the read came.
    if (target.fromWriter) {
      this.served['writer-position'] += 1;
      return mayBeBehind();
    }
    return this.current(known ? 'replica' : 'replica-after-wait');
  }

  private provenHeld(server: DatabaseServer, position: ReplicationPosition): boolean {
    const primaryId = this.servers.primary.knownServerId;
    return (
      primaryId !== undefined &&
      this.servers.followsPrimary(server) &&
      provenByFollower(position, primaryId) &&
      server.hasApplied(position)
    );
  }

  /** Against the history of this health round, read afresh only for a write that one does not hold yet. */
  private async historyVerdict(position: ReplicationPosition): Promise<WriteVerdict | undefined> {
    const recent = this.positions.recentHistory();
    const verdict = recent && writeVerdict(recent, position);
    if (verdict && verdict !== 'ahead') return verdict;
    const history = await this.positions.history().catch(() => undefined);
    return history && writeVerdict(history, position);
  }

  current(by: ServedBy): undefined {
    this.served[by] += 1;
    return undefined;
  }

  private stale(behindSeconds: number): number {
    this.served.stale += 1;
    return behindSeconds;
  }

  private async dialect(): Promise<GtidDialect | undefined> {
    if (!this.positions.dialect && this.servers.primary.health.answering) {
      await this.positions.read().catch(() => undefined);
    }
    return this.positions.dialect;
  }
}
