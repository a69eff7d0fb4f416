import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../common/time/clock';
import { DATABASE_CONFIG } from '../config/config.module';
import type { DatabaseConfig } from '../config/database.config';
import { buildDataSourceOptions } from './data-source-options';
import { DatabaseServer } from './database-server';
import type { PrimaryVerdict } from './server-roles';

@Injectable()
export class DatabaseServers implements OnApplicationShutdown {
  /** The server followed as the primary: DB_HOST until the servers say another one is. */
  primary: DatabaseServer;
  replicas: DatabaseServer[];
  all: DatabaseServer[];
  private readonly candidates: DatabaseServer[];
  readonly replicaMaxStalenessSeconds: number;
  /** DB_REPLICA_WAIT_MS: how long a read waits for a replica to apply what it must reflect. */
  readonly replicaWaitMs: number;
  /** Whether the configured primary was last found to be the primary (docs/API.md §20). */
  primaryIsCurrent = true;
  private followedChanges = 0;
  /** The `@@server_id`s of primaries left for another: one back writable is an old primary, not a rival. */
  readonly deposedIds = new Set<number>();
  private readonly logger = new Logger('ReadRouter');

  constructor(@InjectDataSource() primary: DataSource, @Inject(DATABASE_CONFIG) config: DatabaseConfig, clock: Clock) {
    this.primary = new DatabaseServer('primary', primary, config, clock);
    this.replicas =
      config.type === 'mysql'
        ? config.replicas.map(
            (address, index) =>
              new DatabaseServer(
                `replica-${index + 1}`,
                new DataSource({
                  ...buildDataSourceOptions({ ...config, ...address }),
                  entities: primary.options.entities,
                }),
                config,
                clock,
              ),
          )
        : [];
    this.candidates = [this.primary, ...this.replicas];
    this.all = this.candidates;
    this.replicaMaxStalenessSeconds = config.type === 'mysql' ? config.replicaMaxStalenessSeconds : 0;
    this.replicaWaitMs = config.type === 'mysql' ? config.replicaWaitMs : 0;
  }

  /** What the last round found of the primary's role; a change is counted and logged once. */
  recordVerdict(verdict: PrimaryVerdict): void {
    const successor = !verdict.current && this.candidates.find((server) => server.name === verdict.successor);
    if (successor) {
      this.follow(successor, verdict.why);
      return;
    }
    if (verdict.current === this.primaryIsCurrent) return;
    this.primaryIsCurrent = verdict.current;
    this.followedChanges += 1;
    if (verdict.current) this.logger.log(`${this.primary.name} is the primary again: read as current`);
    else
      this.logger.warn(
        `${this.primary.name} is no longer the primary (${verdict.why}): nothing it holds is served as current`,
      );
  }

  /** Changes of the primary followed, of its being the primary, and of the server behind each configured address. */
  get roleChanges(): number {
    return this.candidates.reduce((changes, server) => changes + server.addressMoves, this.followedChanges);
  }

  /** Another candidate is the primary by what the servers say: followed from now on, without a restart. */
  private follow(successor: DatabaseServer, why: string): void {
    const former = this.primary;
    if (former.knownServerId !== undefined) this.deposedIds.add(former.knownServerId);
    if (successor.knownServerId !== undefined) this.deposedIds.delete(successor.knownServerId);
    former.isPrimary = false;
    successor.isPrimary = true;
    this.primary = successor;
    this.replicas = this.candidates.filter((server) => server !== successor);
    this.all = [successor, ...this.replicas];
    this.primaryIsCurrent = true;
    this.followedChanges += 1;
    this.logger.warn(
      `${successor.name} is the primary now (${former.name}: ${why}): followed; ${former.name} is read from only as a replica`,
    );
  }

  /** A replica that follows the primary followed now, of no deposed lineage: what it applied, the primary holds. */
  followsPrimary(server: DatabaseServer): boolean {
    const follows = server.health.role?.follows;
    return (
      !server.isPrimary &&
      server.health.replicating &&
      follows !== undefined &&
      follows === this.primary.knownServerId &&
      !this.deposedIds.has(follows)
    );
  }

  /** Readiness: the primary when it answers, else a replica that answers; none when no server can serve. */
  servingServer(): DatabaseServer | undefined {
    return this.all.find((server) => server.canRead());
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled(this.all.map((server) => server.close()));
  }
}
