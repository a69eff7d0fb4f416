import { Inject, Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { JWKS_KEY_SET, type JwksKeySet } from '../auth/jwks-key-set';
import { UNAVAILABLE_REASONS } from '../common/problem/problem-catalogue';
import { DatabaseServers } from '../database/database-servers';
import { Freshness } from '../database/freshness';

/** What a request's variant label can be: decided by the token's role, `none` before one is known. */
export type Variant = 'user' | 'admin' | 'none';

/** mysql2's pool keeps its counts in fields of its own; they have no public accessor. */
interface Mysql2PoolInternals {
  _allConnections: { length: number };
  _freeConnections: { length: number };
  _connectionQueue: { length: number };
}

/** Every metric of docs/API.md §12, in a registry of this application's own (tests run several applications in one
 * process). */
@Injectable()
export class Metrics {
  readonly registry = new Registry();

  readonly requestDuration = new Histogram({
    name: 'http_server_request_duration_seconds',
    help: 'Time from a request arriving to its answer being sent, by route pattern, status and variant.',
    labelNames: ['method', 'route', 'status_code', 'variant'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly statementDuration = new Histogram({
    name: 'db_client_operation_duration_seconds',
    help: 'Time a round trip of the listing (its statements), or a background check of a server (ping), took, by statement and server.',
    labelNames: ['statement', 'server'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });

  readonly rateLimited = new Counter({
    name: 'http_server_rate_limited_requests_total',
    help: 'Requests answered 429: their caller passed RATE_LIMIT_PER_MINUTE, or already ran EXPORTS_PER_CALLER exports.',
    labelNames: ['variant'] as const,
    registers: [this.registry],
  });

  readonly unavailable = new Counter({
    name: 'http_server_unavailable_responses_total',
    help: 'Requests answered 503, by reason: database (unreachable or failing), timeout (past DB_QUERY_TIMEOUT_MS), saturated (could not be served in time), identity-provider (a token whose key could not be fetched).',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly exports = new Counter({
    name: 'orders_exports_total',
    help: 'Exports of GET /orders (CSV or NDJSON) by outcome: complete; cancelled (the client went away); failed (aborted without its end); refused (the caller already ran EXPORTS_PER_CALLER).',
    labelNames: ['variant', 'format', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly exportedRows = new Counter({
    name: 'orders_exported_rows_total',
    help: 'Orders written by exports, as they are written, by variant and format.',
    labelNames: ['variant', 'format'] as const,
    registers: [this.registry],
  });

  readonly countChangesFolded = new Counter({
    name: 'orders_count_changes_folded_total',
    help: 'Changes of order counts (appended by the triggers of orders) folded into the per-day totals by this instance.',
    registers: [this.registry],
  });

  readonly countFoldLastSuccess = new Gauge({
    name: 'orders_count_fold_last_success_timestamp_seconds',
    help: 'When this instance last folded order count changes (or found its turn taken by another instance).',
    registers: [this.registry],
  });

  constructor(servers: DatabaseServers, freshness: Freshness, @Inject(JWKS_KEY_SET) keySet: JwksKeySet | null) {
    collectDefaultMetrics({ register: this.registry });
    // Every reason is exported from the start, so that rates and alerts see a 0 rather than no series.
    for (const reason of UNAVAILABLE_REASONS) this.unavailable.inc({ reason }, 0);
    const pools = function* () {
      for (const server of servers.all) {
        const { dataSource } = server;
        if (dataSource.options.type !== 'mysql' || !dataSource.isInitialized) continue;
        const pool = (dataSource.driver as unknown as { pool?: Mysql2PoolInternals }).pool;
        if (pool) yield { server, pool };
      }
    };
    new Gauge({
      name: 'db_client_connections_usage',
      help: 'Connections of the pool, by server and state (used: lent to a statement; idle: open and free).',
      labelNames: ['server', 'state'] as const,
      registers: [this.registry],
      collect() {
        for (const { server, pool } of pools()) {
          const idle = pool._freeConnections.length;
          this.set({ server: server.name, state: 'idle' }, idle);
          this.set({ server: server.name, state: 'used' }, pool._allConnections.length - idle);
        }
      },
    });
    new Gauge({
      name: 'db_client_connections_pending_requests',
      help: 'Requests waiting for a free connection of the pool (and statements waiting inside it), by server.',
      labelNames: ['server'] as const,
      registers: [this.registry],
      collect() {
        for (const { server, pool } of pools()) {
          this.set({ server: server.name }, server.admission.queuedRequests() + pool._connectionQueue.length);
        }
      },
    });
    new Gauge({
      name: 'db_replica_healthy',
      help: 'Whether the listing reads from this replica: it answers, replicates, and is within DB_REPLICA_MAX_LAG_S.',
      labelNames: ['server'] as const,
      registers: [this.registry],
      collect() {
        for (const server of servers.replicas) this.set({ server: server.name }, server.isHealthyReplica() ? 1 : 0);
      },
    });
    new Gauge({
      name: 'db_primary_current',
      help: 'The server followed as the primary (label), and whether it is the primary by what every server says of itself: writable, replicating from nothing, and the one the replicas follow.',
      labelNames: ['server'] as const,
      registers: [this.registry],
      collect() {
        // One series: the server followed now, not every server once followed.
        this.reset();
        this.set({ server: servers.primary.name }, servers.primaryIsCurrent ? 1 : 0);
      },
    });
    new Gauge({
      name: 'db_writable_servers',
      help: 'Servers that answer, take writes and replicate from nothing, by server id: 1 in a healthy topology.',
      registers: [this.registry],
      collect() {
        const writable = servers.all
          .filter(({ health }) => health.role?.writable && !health.role.replicating)
          .map(({ health }) => health.role?.serverId);
        this.set(new Set(writable).size);
      },
    });
    new Gauge({
      name: 'db_server_info',
      help: 'Which physical server answers at each configured address (identity: MySQL @@server_uuid, MariaDB @@server_id), and whether it is followed as the primary (role); 1 for each address whose server is known.',
      labelNames: ['server', 'identity', 'role'] as const,
      registers: [this.registry],
      collect() {
        // One series an address: the server there now, not every server once there.
        this.reset();
        for (const server of servers.all) {
          const identity = server.knownIdentity;
          if (identity === undefined) continue;
          this.set({ server: server.name, identity, role: server.isPrimary ? 'primary' : 'replica' }, 1);
        }
      },
    });
    new Gauge({
      name: 'db_servers_answering',
      help: 'Database servers that answered their last check: 0 when every one is down, whatever their roles.',
      registers: [this.registry],
      collect() {
        this.set(servers.all.filter((server) => server.health.answering).length);
      },
    });
    new Counter({
      name: 'db_role_changes_total',
      help: 'How often the primary followed changed, stopped or started being the primary, or another server came to answer at a configured address, since start.',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(servers.roleChanges);
      },
    });
    new Gauge({
      name: 'db_replica_lag_seconds',
      help: 'How far this replica is behind the primary, from the primary’s GTID positions over time; absent while unknown.',
      labelNames: ['server'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const server of servers.replicas) {
          const lag = server.health.lagSeconds;
          if (lag !== undefined) this.set({ server: server.name }, lag);
        }
      },
    });
    // Freshness counts how each read was served, and the key set its fetches: those layers know nothing of metrics.
    this.countedElsewhere(
      'orders_listing_reads_total',
      'Pages and exports of the listing by how they were served: primary; replica (known to hold every write before the request); replica-after-wait; writer-position (a Read-After-Gtid the replica held); primary-after-wait (the replica had not caught up within DB_REPLICA_WAIT_MS); stale (a replica, with Data-Staleness).',
      'served',
      freshness.served,
    );
    if (keySet) {
      this.countedElsewhere(
        'orders_jwks_fetches_total',
        'Fetches of the identity provider’s key set (JWKS mode), by outcome: success or failure.',
        'outcome',
        keySet.fetches,
      );
    }
  }

  /** A counter whose counts, by one label, another layer keeps as they happen; read at each scrape. */
  private countedElsewhere(name: string, help: string, label: string, counts: Readonly<Record<string, number>>): void {
    new Counter({
      name,
      help,
      labelNames: [label],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [value, count] of Object.entries(counts)) this.inc({ [label]: value }, count);
      },
    });
  }
}
