import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { RowDataPacket } from 'mysql2/promise';
import { hasReached, parseGtidPosition, PrimaryTimeline } from '../../src/database/replication-lag';
import { writeChart } from '../lib/charts';
import {
  caughtUp,
  foldCounts,
  growthPair,
  GROWTH_DATABASE,
  position,
  secondsUntil,
  serviceLogFile,
  type GrowthPair,
} from '../lib/growth-servers';
import { median, thousands as format } from '../lib/measure';
import { runSale, sleep } from '../lib/sale-orders';
import { writeOutDirtyPages } from '../lib/write-schemas';
import { freePort, shippedReplicaOptions } from '../../launchers/mysql-server';
import { CORES, EVERY_CORE, pinProcess, type Pinning } from '../lib/pinning';
import { warm, withServices } from './growth';

/**
 * `--sale`: docs/API.md §18 measured. On a primary and a replica holding `orders` orders (bench/lib/growth-servers.ts,
 * the replica started from deploy/mariadb/replica.cnf), a sale of `writers` connections placing an order with two
 * seats and paying it, every transaction durable on the primary:
 *
 * 1. the primary's full speed alone, and the replica's apply rate alone, each given the machine in turn (the
 *    replica's SQL thread stopped while the primary takes the sale, then timed applying it): with the shipped
 *    settings, and with each of them in turn at the server's default (the redo log's size, one applier thread,
 *    a flush at every commit as a durable primary does), the other way of flushing once a second (the redo log
 *    written at every commit, or written once a second too), then all three at their defaults;
 * 2. the back-office and members reading through the service, idle, then during a sale at each share of the full
 *    speed for `saleSeconds`: the replica's lag over the window, the reads' p50/p95 and every answer other than 200,
 *    and the sale's rate against the sale alone.
 */
export interface SaleBenchOptions {
  orders: number;
  writers: number;
  /** How long each sale with reads runs, at each share. */
  saleSeconds: number;
  /** Shares of the primary's full speed, in percent. */
  shares: number[];
  /** How long the sale runs for each apply-rate measurement. */
  applySeconds: number;
  /** The replica's redo log sizes each window is run with in turn, the rest shipped; the shipped size alone if empty. */
  windowRedoLogBytes: number[];
  /** Each run in turn: the servers on cores of their own (`taskset`), as a deployment has them, then as they come. */
  pinnings: Pinning[];
  /** How long the member probes run alone, idle and with the replica held behind. */
  probeSeconds: number;
}

/** How far behind the replica is held (MASTER_DELAY) for the probes of a replica behind but counted healthy. */
const PROBE_DELAY_S = 3;

/** Shapes only the replica's own indexes bound at this size, as the back-office sends them. */
const ADMIN_SHAPES = [
  'sort=totalPrice,desc',
  'orderStatus=REFUNDED&sort=updatedAt,desc',
  'orderStatus=PAYMENT_COMPLETED&sort=userId,asc',
  'sort=concertId,asc&page=50',
  'orderStatus=CANCELLED&sort=status,desc',
  'startDate=2025-06-01&endDate=2025-06-30&sort=updatedAt,asc',
];
/** Members' pages: the primary serves them too, from indexes of its own. */
const MEMBER_SHAPES = ['', 'sort=totalPrice,desc', 'sort=createdAt,asc&page=2'];

/** Who reads: an administrator; members spread over the seeded ones; the busiest member (the seed's member 1). */
/** A member the probes place and pay orders for, and list them as (docs/API.md §19). */
interface ProbeMember {
  id: number;
  token: string;
}

export interface ReaderTokens {
  /** Members without seeded orders, so that a probe's page is theirs alone. */
  probeMembers: ProbeMember[];
  admin: string;
  members: string[];
  busiest: string;
}
type ReaderKind = 'admin' | 'member' | 'busiest';
const LAG_SAMPLE_MS = 500;
/**
 * How often the lag sampler reads the primary's position. A replica's lag is told from the newest primary position
 * it has reached; that position was last seen up to one of these intervals before the primary moved past it, so the
 * lag told is at most this much over the real one (the service samples about once a second, and tells up to a second
 * more).
 */
const PRIMARY_SAMPLE_MS = 100;
/** deploy/mariadb/replica.cnf, as the replica is started with it. */
const SHIPPED: ReplicaSetting = (() => {
  const options = shippedReplicaOptions('mariadb');
  return {
    threads: Number(options.get('slave_parallel_threads')),
    flushAtCommit: Number(options.get('innodb_flush_log_at_trx_commit')) as ReplicaSetting['flushAtCommit'],
    redoLogBytes: Number(options.get('innodb_log_file_size')),
  };
})();
/** MariaDB 10.11's own `innodb_log_file_size`. */
const SERVER_REDO_LOG_BYTES = 96 * 2 ** 20;
const FLUSHING: Record<ReplicaSetting['flushAtCommit'], string> = {
  0: 'write and flush once a second',
  1: 'flush at every commit',
  2: 'flush once a second',
};
const redoLogLabel = (bytes: number) =>
  `${bytes >= 2 ** 30 ? `${bytes / 2 ** 30} GiB` : `${bytes / 2 ** 20} MiB`} redo log`;
const settingLabel = ({ threads, flushAtCommit, redoLogBytes }: ReplicaSetting) =>
  `${Math.max(1, threads)} thread${threads > 1 ? 's' : ''}, ${FLUSHING[flushAtCommit]}, ${redoLogLabel(redoLogBytes)}`;
/** The replica's redo log of a window, where the windows ran with several sizes; nothing where they ran with one. */
const windowRedoLog = ({ replica }: WindowResult, windows: WindowResult[]) =>
  new Set(windows.map((window) => window.replica.redoLogBytes)).size > 1
    ? `, ${redoLogLabel(replica.redoLogBytes)}`
    : '';
/** A window by its share, and by the replica's redo log where the windows ran with several. */
const windowLabel = (window: WindowResult, windows: WindowResult[]) =>
  `${window.share} %${windowRedoLog(window, windows)}`;
/**
 * What the replica's apply rate depends on: the shipped settings, each of them in turn at the server's default (its
 * redo log's size, one applier thread, a flush at every commit), the other way of flushing once a second, then all
 * three at their defaults.
 */
const VARIANTS: ReplicaSetting[] = [
  SHIPPED,
  { ...SHIPPED, redoLogBytes: SERVER_REDO_LOG_BYTES },
  { ...SHIPPED, threads: 0 },
  { ...SHIPPED, flushAtCommit: 1 },
  { ...SHIPPED, flushAtCommit: SHIPPED.flushAtCommit === 0 ? 2 : 0 },
  { threads: 0, flushAtCommit: 1, redoLogBytes: SERVER_REDO_LOG_BYTES },
];
const REPLICA_SETTINGS: Array<[string, ReplicaSetting]> = VARIANTS.map((setting, index) => [
  `${index === 0 ? 'shipped: ' : index === VARIANTS.length - 1 ? 'defaults: ' : ''}${settingLabel(setting)}`,
  setting,
]);

interface ApplyResult {
  setting: string;
  primaryOrdersPerSecond: number;
  applyOrdersPerSecond: number;
}

interface ReadStats {
  count: number;
  p50: number;
  p95: number;
  /** The median of each shape, by its query. */
  byShape: Map<string, number>;
  /** Answers other than 200, by status and problem type. */
  refusals: Map<string, number>;
}

/** The member probes of a window: each placed and paid for an order, then listed the member's orders at once. */
interface ProbeStats {
  count: number;
  /** Probes whose page held the order, paid. */
  seen: number;
  p50: number;
  p95: number;
  /** The probes that sent the payment's position (`Read-After-Gtid`). */
  withPosition: { count: number; seen: number; p95: number };
  /** The primary's rows read, and its CPU, across a page's request, on average. */
  primaryRowsPerPage: number;
  primaryCpuMsPerPage: number;
  /** `orders_listing_reads_total` over the window, by how the service served: every listing read in it. */
  served: Map<string, number>;
}

interface WindowResult {
  share: number;
  probes: ProbeStats;
  /** The replica's settings during the window. */
  replica: ReplicaSetting;
  targetOrdersPerSecond: number;
  ordersPerSecond: number;
  failures: number;
  lag: Array<{ atSeconds: number; lagSeconds: number }>;
  admin: ReadStats;
  member: ReadStats;
  busiest: ReadStats;
  /** Answers that said they came from a replica behind (`Data-Staleness`). */
  stale: number;
}

const percentile = (values: number[], p: number) =>
  values.length === 0
    ? NaN
    : [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))];

/**
 * The primary's full speed: the median of its sales alone, one before each apply measurement. The primary is the
 * same in each; what varies between them is the machine, by up to a third from one minute to the next.
 */
const fullSpeedOf = (applies: ApplyResult[]): number => median(applies.map((apply) => apply.primaryOrdersPerSecond));

/**
 * The primary takes a sale alone (the replica's SQL thread stopped, its IO thread fetching); once the replica has
 * fetched all of it, its SQL thread is started and timed until it has applied it: each rate with the machine alone.
 */
async function applyRate(pair: GrowthPair, setting: string, writers: number, seconds: number): Promise<ApplyResult> {
  // Only this sale is timed: whatever the replica had still to apply is applied first.
  await caughtUp(pair);
  const [primary, replica] = [await pair.root('primary'), await pair.root('replica')];
  try {
    await replica.query('STOP SLAVE SQL_THREAD');
    const sale = await runSale(pair.primary.port, GROWTH_DATABASE, { connections: writers, seconds });
    const target = await position(primary, 'gtid_binlog_pos');
    await secondsUntil(
      'the replica to fetch the sale',
      async () => {
        const [[status]] = await replica.query<RowDataPacket[]>('SHOW SLAVE STATUS');
        return hasReached(parseGtidPosition(String(status.Gtid_IO_Pos ?? '')), target);
      },
      200,
    );
    await replica.query('START SLAVE SQL_THREAD');
    const applying = await secondsUntil('the replica to apply the sale', async () =>
      hasReached(await position(replica, 'gtid_slave_pos'), target),
    );
    const result = {
      setting,
      primaryOrdersPerSecond: sale.placed / seconds,
      applyOrdersPerSecond: sale.placed / applying,
    };
    console.error(
      `  ${setting}: primary ${format(result.primaryOrdersPerSecond)} orders/s, replica applied them at ` +
        `${format(result.applyOrdersPerSecond)} orders/s (${(result.applyOrdersPerSecond / result.primaryOrdersPerSecond).toFixed(2)}x)`,
    );
    return result;
  } finally {
    await replica.query('START SLAVE SQL_THREAD').catch(() => undefined);
    await Promise.all([primary.end(), replica.end()]);
  }
}

interface ReplicaSetting {
  threads: number;
  /**
   * `innodb_flush_log_at_trx_commit`: 1 writes and flushes the redo log at every commit, 2 writes it at every commit
   * and flushes it once a second, 0 does both once a second.
   */
  flushAtCommit: 0 | 1 | 2;
  /** `innodb_log_file_size`: how much change the replica's pages may gather before a checkpoint writes them out. */
  redoLogBytes: number;
}

/**
 * Sets the replica's applier threads, flushing and redo log; the thread count changes only while replication is
 * stopped, and a resized redo log is in use once the statement returns.
 */
async function configureReplica(pair: GrowthPair, { threads, flushAtCommit, redoLogBytes }: ReplicaSetting) {
  const replica = await pair.root('replica');
  try {
    await replica.query(
      `STOP SLAVE; SET GLOBAL slave_parallel_threads = ${threads};
       SET GLOBAL innodb_flush_log_at_trx_commit = ${flushAtCommit};
       SET GLOBAL innodb_log_file_size = ${redoLogBytes}; START SLAVE`,
    );
  } finally {
    await replica.end();
  }
}

/** Changed pages a replica may hold when a window starts: what an idle page cleaner leaves within seconds. */
const SETTLED_DIRTY_PAGES = 2_000;

/**
 * Writes the replica's changed pages out before a window, so that every window starts as a sale after a quiet spell
 * would, with little for a checkpoint to write, whatever the windows and measurements before it left. Returns the
 * seconds it took.
 */
async function settleReplica(pair: GrowthPair): Promise<number> {
  const replica = await pair.root('replica');
  const started = performance.now();
  try {
    await writeOutDirtyPages(replica, SETTLED_DIRTY_PAGES);
  } finally {
    await replica.end();
  }
  return (performance.now() - started) / 1000;
}

/**
 * Waits until the service reads a replica-only shape from the replica as fresh (no `Data-Staleness`): a window that
 * follows a change of the replica's settings, which stops its replication, starts once the service has seen it
 * catch up, not with answers it marks behind for a stop of the bench's own. Returns the seconds it took.
 */
function serviceReadsFresh(baseUrl: string, adminToken: string): Promise<number> {
  return secondsUntil(
    'the service to read the replica as fresh',
    async () => {
      const response = await fetch(`${baseUrl}/orders?${ADMIN_SHAPES[0]}`, {
        headers: { authorization: `Bearer ${adminToken}` },
      });
      await response.arrayBuffer();
      return response.status === 200 && !response.headers.has('data-staleness');
    },
    200,
  );
}

/**
 * The reading client: administrators' and members' pages in turn, one at a time, in a worker thread of its own
 * (bench/lib/read-client.mjs), so that the writers' connections in this thread do not delay its requests. Members
 * are spread over the seeded ones, as a sale's buyers reloading their orders would be; every fourth member read is
 * the busiest member's, told apart.
 */
function startReads(baseUrl: string, tokens: ReaderTokens, cores?: string) {
  const client = startReadClient(baseUrl, tokens, cores);
  const stats = (all: ClientRead[], kind: ReaderKind): ReadStats => {
    const mine = all.filter(([readKind]) => readKind === kind);
    const refusals = new Map<string, number>();
    for (const [, , , status, type] of mine) {
      if (status === 200) continue;
      const label = `${status} ${type}`.trim();
      refusals.set(label, (refusals.get(label) ?? 0) + 1);
    }
    return {
      count: mine.length,
      p50: percentile(
        mine.map(([, , ms]) => ms),
        0.5,
      ),
      p95: percentile(
        mine.map(([, , ms]) => ms),
        0.95,
      ),
      refusals,
      byShape: new Map(
        (kind === 'admin' ? ADMIN_SHAPES : MEMBER_SHAPES).map((query) => [
          query,
          percentile(
            mine.filter(([, readQuery]) => readQuery === query).map(([, , ms]) => ms),
            0.5,
          ),
        ]),
      ),
    };
  };
  return {
    stop: async () => {
      const all = await client.stop();
      return {
        admin: stats(all, 'admin'),
        member: stats(all, 'member'),
        busiest: stats(all, 'busiest'),
        stale: all.filter((read) => read[5]).length,
      };
    },
  };
}

/** The reading client's worker; `stop` gives back every read it made. */
export function startReadClient(baseUrl: string, tokens: ReaderTokens, cores?: string) {
  const worker = new Worker(join(__dirname, '../lib/read-client.mjs'), {
    workerData: {
      baseUrl,
      tokens: { admin: tokens.admin, members: tokens.members, busiest: tokens.busiest },
      shapes: { admin: ADMIN_SHAPES, member: MEMBER_SHAPES },
      cores,
    },
  });
  const reads = new Promise<ClientRead[]>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    stop: async (): Promise<ClientRead[]> => {
      worker.postMessage('stop');
      return reads;
    },
  };
}

/** One read of the client: who read, the query, its time in ms, the status, the problem type, whether stale, when. */
export type ClientRead = [ReaderKind, string, number, number, string, boolean, number];

/**
 * The replica's lag every LAG_SAMPLE_MS, told as the service tells it (from the primary's positions over time), with
 * the primary read every PRIMARY_SAMPLE_MS so that it is told to within that.
 */
function startLagSampler(pair: GrowthPair) {
  let running = true;
  const samples: Array<{ atSeconds: number; lagSeconds: number }> = [];
  const started = Date.now();
  const loop = (async () => {
    const [primary, replica] = [await pair.root('primary'), await pair.root('replica')];
    const timeline = new PrimaryTimeline(3_600_000);
    try {
      for (let read = 0; running; read += 1) {
        timeline.record(await position(primary, 'gtid_binlog_pos'), Date.now());
        if (read % (LAG_SAMPLE_MS / PRIMARY_SAMPLE_MS) === 0) {
          const lag = timeline.lagSeconds(await position(replica, 'gtid_slave_pos'), Date.now()) ?? 0;
          samples.push({ atSeconds: (Date.now() - started) / 1000, lagSeconds: lag });
        }
        await sleep(PRIMARY_SAMPLE_MS);
      }
    } finally {
      await Promise.all([primary.end(), replica.end()]);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return samples;
    },
  };
}

/** The service's `orders_listing_reads_total`, by `served`. */
export async function servedCounts(metricsUrl: string): Promise<Map<string, number>> {
  const text = await (await fetch(metricsUrl)).text();
  const counts = new Map<string, number>();
  for (const [, served, count] of text.matchAll(/^orders_listing_reads_total\{served="([^"]+)"\} (\d+)/gm)) {
    counts.set(served, Number(count));
  }
  return counts;
}

/** Member probes in a worker thread of their own (bench/lib/member-probe.mjs), until stopped. */
function startProbes(pair: GrowthPair, baseUrl: string, metricsUrl: string, members: ProbeMember[], cores?: string) {
  const before = servedCounts(metricsUrl);
  const worker = new Worker(join(__dirname, '../lib/member-probe.mjs'), {
    workerData: {
      baseUrl,
      primaryPort: pair.primary.port,
      database: GROWTH_DATABASE,
      members,
      primaryPid: pair.primary.pid(),
      cores,
    },
  });
  const probes = new Promise<Array<[number, boolean, number, number, boolean]>>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    stop: async (): Promise<ProbeStats> => {
      worker.postMessage('stop');
      const all = await probes;
      const [started, ended] = [await before, await servedCounts(metricsUrl)];
      const positioned = all.filter((probe) => probe[4]);
      const ticksMs = 1000 / 100;
      return {
        count: all.length,
        seen: all.filter((probe) => probe[1]).length,
        p50: percentile(
          all.map(([ms]) => ms),
          0.5,
        ),
        p95: percentile(
          all.map(([ms]) => ms),
          0.95,
        ),
        withPosition: {
          count: positioned.length,
          seen: positioned.filter((probe) => probe[1]).length,
          p95: percentile(
            positioned.map(([ms]) => ms),
            0.95,
          ),
        },
        primaryRowsPerPage: all.reduce((sum, probe) => sum + probe[2], 0) / Math.max(1, all.length),
        primaryCpuMsPerPage: (all.reduce((sum, probe) => sum + probe[3], 0) * ticksMs) / Math.max(1, all.length),
        served: new Map([...ended].map(([served, count]) => [served, count - (started.get(served) ?? 0)])),
      };
    },
  };
}

/** Holds the replica `seconds` behind the primary, both replication threads running (0: not held). */
async function holdReplicaBehind(pair: GrowthPair, seconds: number): Promise<void> {
  const replica = await pair.root('replica');
  try {
    await replica.query(`STOP SLAVE; CHANGE MASTER TO MASTER_DELAY = ${seconds}; START SLAVE`);
  } finally {
    await replica.end();
  }
}

/** The primary and this process (the sale's writers) on one core, the replica on the other; or every core. */
function pinServers(pair: GrowthPair, pinning: Pinning): void {
  const pinned = pinning === 'pinned';
  pinProcess(pair.primary.pid()!, pinned ? CORES.primary : EVERY_CORE);
  pinProcess(pair.replica.pid()!, pinned ? CORES.replica : EVERY_CORE);
  pinProcess(process.pid, pinned ? CORES.primary : EVERY_CORE);
}

/** Whether the lag grows over the window: the mean of its last third against its middle third. */
function grows(lag: WindowResult['lag']): string {
  const third = Math.floor(lag.length / 3);
  const mean = (values: typeof lag) => values.reduce((sum, { lagSeconds }) => sum + lagSeconds, 0) / values.length;
  const [middle, last] = [mean(lag.slice(third, 2 * third)), mean(lag.slice(2 * third))];
  return last > middle + 0.5
    ? `grows (${middle.toFixed(1)} → ${last.toFixed(1)} s)`
    : `steady (${middle.toFixed(1)}, ${last.toFixed(1)} s)`;
}

export async function run(tokens: ReaderTokens, options: SaleBenchOptions): Promise<void> {
  console.error(`${format(options.orders)} orders: the pair`);
  const pair = await growthPair(options.orders);
  try {
    const primary = await pair.root('primary');
    // A primary taking a sale durably, as §7 measures the write path.
    await primary.query('SET GLOBAL sync_binlog = 1; SET GLOBAL innodb_flush_log_at_trx_commit = 1');
    await primary.end();
    await configureReplica(pair, SHIPPED);
    // A kept pair starts as the service would have left it: its counts folded.
    await foldCounts(pair);
    console.error('warming both servers');
    await Promise.all([warm(pair, 'primary'), warm(pair, 'replica')]);
    // A sale's pages, warm on both, before anything is measured.
    await runSale(pair.primary.port, GROWTH_DATABASE, { connections: options.writers, seconds: options.applySeconds });
    for (const pinning of options.pinnings) await runPinned(pair, tokens, options, pinning);
  } finally {
    await pair.stop();
  }
}

/** One run of the bench, the servers pinned to cores of their own or not: the apply rates, then the windows. */
async function runPinned(
  pair: GrowthPair,
  tokens: ReaderTokens,
  options: SaleBenchOptions,
  pinning: Pinning,
): Promise<void> {
  pinServers(pair, pinning);
  // The reading clients and the service on the replica's core, as they would be on machines other than the primary's.
  const readerCores = pinning === 'pinned' ? CORES.replica : undefined;
  console.error(`${pinning}: the primary alone and the replica applying alone`);
  const applies: ApplyResult[] = [];
  // Unpinned, the shipped setting alone, beside the pinned run's every setting.
  for (const [setting, replica] of pinning === 'pinned' ? REPLICA_SETTINGS : REPLICA_SETTINGS.slice(0, 1)) {
    await configureReplica(pair, replica);
    applies.push(await applyRate(pair, setting, options.writers, options.applySeconds));
  }
  await configureReplica(pair, SHIPPED);
  console.error('folding the counting rows of the sales alone');
  await foldCounts(pair);
  const fullSpeed = fullSpeedOf(applies);

  const windows: WindowResult[] = [];
  const probesAlone: Array<[string, ProbeStats]> = [];
  let idle: { admin: ReadStats; member: ReadStats; busiest: ReadStats; stale: number } | undefined;
  const metricsPort = await freePort();
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  await withServices(
    [
      {
        label: 'sale',
        env: { ...pair.environment, METRICS_PORT: String(metricsPort) },
        logFile: serviceLogFile(`${options.orders}-sale`),
      },
    ],
    async ([baseUrl]) => {
      const probeFor = async (label: string) => {
        const probes = startProbes(pair, baseUrl, metricsUrl, tokens.probeMembers, readerCores);
        await sleep(options.probeSeconds * 1000);
        probesAlone.push([label, await probes.stop()]);
      };
      console.error('member probes, idle');
      await probeFor('idle, the replica caught up');
      console.error(`member probes, the replica held ${PROBE_DELAY_S} s behind`);
      await holdReplicaBehind(pair, PROBE_DELAY_S);
      try {
        await probeFor(`idle, the replica held ${PROBE_DELAY_S} s behind (MASTER_DELAY)`);
      } finally {
        await holdReplicaBehind(pair, 0);
      }
      await caughtUp(pair);
      console.error('reads, idle');
      const idleReads = startReads(baseUrl, tokens, readerCores);
      await sleep(Math.min(60, options.saleSeconds) * 1000);
      idle = await idleReads.stop();
      const replicaSettings = (
        options.windowRedoLogBytes.length > 0 ? options.windowRedoLogBytes : [SHIPPED.redoLogBytes]
      ).map((redoLogBytes) => ({ ...SHIPPED, redoLogBytes }));
      for (const [share, replica] of options.shares.flatMap((share) =>
        replicaSettings.map((setting) => [share, setting] as const),
      )) {
        const target = (fullSpeed * share) / 100;
        await configureReplica(pair, replica);
        console.error(`  the replica's changed pages written in ${(await settleReplica(pair)).toFixed(0)} s`);
        console.error(
          `  the service read it fresh after ${(await serviceReadsFresh(baseUrl, tokens.admin)).toFixed(1)} s`,
        );
        console.error(
          `a sale at ${share} % (${format(target)} orders/s) for ${options.saleSeconds} s, with reads and probes; ` +
            `the replica: ${settingLabel(replica)}`,
        );
        const [reads, probes, lag] = [
          startReads(baseUrl, tokens, readerCores),
          startProbes(pair, baseUrl, metricsUrl, tokens.probeMembers, readerCores),
          startLagSampler(pair),
        ];
        const sale = await runSale(pair.primary.port, GROWTH_DATABASE, {
          connections: options.writers,
          seconds: options.saleSeconds,
          ordersPerSecond: share >= 100 ? undefined : target,
        });
        const [read, probed, lagSamples] = [await reads.stop(), await probes.stop(), await lag.stop()];
        windows.push({
          share,
          replica,
          probes: probed,
          targetOrdersPerSecond: target,
          ordersPerSecond: sale.placed / options.saleSeconds,
          failures: Object.values(sale.failures).reduce((sum, count) => sum + count, 0),
          lag: lagSamples,
          ...read,
        });
        // The next window starts from a replica that has caught up.
        console.error(`  the replica caught up ${(await caughtUp(pair)).toFixed(1)} s after the sale`);
      }
    },
    (pids) => {
      for (const pid of pids) pinProcess(pid, readerCores ?? EVERY_CORE);
    },
  );
  report(options, pinning, applies, idle!, windows);
  reportProbes(probesAlone, windows);
  if (pinning === options.pinnings[0]) chart(options, applies, windows);
}

/** docs/API.md §19: whether a member saw the order they had just paid for, how fast, and how their page was served. */
function reportProbes(alone: Array<[string, ProbeStats]>, windows: WindowResult[]): void {
  console.log(
    '\nA member places an order and pays for it on the primary, then lists their orders through the service at once; ' +
      "every other probe sends the payment's position (`Read-After-Gtid`). Served: every listing read of the window, " +
      'by `orders_listing_reads_total`.\n',
  );
  console.log(
    '| window | probes | saw it, paid | p50 / p95 ms | with its position: saw it, p95 ms | primary rows read / page (less as long with none) | primary CPU ms / page (likewise) | served |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  const rows: Array<[string, ProbeStats]> = [
    ...alone,
    ...windows.map((window): [string, ProbeStats] => [`sale at ${window.share} %, with reads`, window.probes]),
  ];
  for (const [label, probes] of rows) {
    const served = [...probes.served]
      .filter(([, count]) => count > 0)
      .map(([by, count]) => `${by} ${count}`)
      .join(', ');
    console.log(
      `| ${label} | ${probes.count} | **${probes.seen} of ${probes.count}** | ${probes.p50.toFixed(1)} / ${probes.p95.toFixed(1)} | ` +
        `${probes.withPosition.seen} of ${probes.withPosition.count}, ${probes.withPosition.p95.toFixed(1)} | ` +
        `${probes.primaryRowsPerPage.toFixed(1)} | ${probes.primaryCpuMsPerPage.toFixed(2)} | ${served || 'none'} |`,
    );
  }
}

function refusalsText(stats: ReadStats): string {
  return stats.refusals.size === 0
    ? 'none'
    : [...stats.refusals].map(([label, count]) => `${count} × ${label}`).join(', ');
}

function report(
  options: SaleBenchOptions,
  pinning: Pinning,
  applies: ApplyResult[],
  idle: { admin: ReadStats; member: ReadStats; busiest: ReadStats },
  windows: WindowResult[],
): void {
  const fullSpeed = fullSpeedOf(applies);
  console.log(
    `\n## A sale and the replicas (${format(options.orders)} orders, ${options.writers} writers, ${pinning})\n`,
  );
  console.log(
    pinning === 'pinned'
      ? `The primary and the sale's writers on CPU ${CORES.primary}; the replica, the service and the reading clients on CPU ${CORES.replica}. The primary takes the sale alone, then the replica applies it alone.\n`
      : 'Every process on every core. Each server given the machine in turn: the primary taking the sale alone, then the replica applying it.\n',
  );
  console.log(`The primary's full speed, the median of its sales alone: ${format(fullSpeed)} orders/s.\n`);
  console.log('| replica setting | primary alone, orders/s | replica applying, orders/s | ratio |');
  console.log('| --- | --- | --- | --- |');
  for (const apply of applies) {
    console.log(
      `| ${apply.setting} | ${format(apply.primaryOrdersPerSecond)} | ${format(apply.applyOrdersPerSecond)} | ` +
        `**${(apply.applyOrdersPerSecond / apply.primaryOrdersPerSecond).toFixed(2)}×** |`,
    );
  }
  console.log(
    `\nA sale at a share of the primary's full speed (${format(fullSpeed)} orders/s) for ${options.saleSeconds} s, ` +
      'one client reading through the service in turn a replica-only admin shape and a member page.\n',
  );
  console.log(
    '| window | sale orders/s (of alone) | replica lag, max | lag over the window | admin p50 / p95 ms | member p50 / p95 ms | busiest member p50 / p95 ms | answers other than 200 | answers with Data-Staleness |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  const percentiles = (stats: ReadStats) => `${stats.p50.toFixed(1)} / ${stats.p95.toFixed(1)}`;
  const refused = (reads: { admin: ReadStats; member: ReadStats; busiest: ReadStats }) =>
    (['admin', 'member', 'busiest'] as const).map((kind) => `${kind}: ${refusalsText(reads[kind])}`).join('; ');
  console.log(
    `| idle | – | – | – | ${percentiles(idle.admin)} | ${percentiles(idle.member)} | ${percentiles(idle.busiest)} | ` +
      `${refused(idle)} | – |`,
  );
  for (const window of windows) {
    const maxLag = Math.max(...window.lag.map(({ lagSeconds }) => lagSeconds));
    console.log(
      `| ${windowLabel(window, windows)} | ${format(window.ordersPerSecond)} (${(window.ordersPerSecond / fullSpeed).toFixed(2)}×)` +
        `${window.failures > 0 ? `, ${window.failures} failed` : ''} | ${maxLag.toFixed(1)} s | ${grows(window.lag)} | ` +
        `${percentiles(window.admin)} | ${percentiles(window.member)} | ${percentiles(window.busiest)} | ` +
        `${refused(window)} | ${window.stale} |`,
    );
  }
  const labels = windows.map((window) => windowLabel(window, windows));
  console.log(`\nEach shape's median, ms: idle, then at ${labels.join('; ')}.\n`);
  console.log(`| shape | idle | ${labels.join(' | ')} |`);
  console.log(`| --- | --- | ${windows.map(() => '---').join(' | ')} |`);
  for (const [kind, shapes] of [
    ['admin', ADMIN_SHAPES],
    ['member', MEMBER_SHAPES],
    ['busiest', MEMBER_SHAPES],
  ] as const) {
    for (const query of shapes) {
      const cells = [idle, ...windows].map((stats) => stats[kind].byShape.get(query)?.toFixed(1) ?? '–');
      console.log(`| ${kind} \`${query || '(defaults)'}\` | ${cells.join(' | ')} |`);
    }
  }
  for (const window of windows) {
    const every = Math.max(1, Math.round(10_000 / LAG_SAMPLE_MS));
    const course = window.lag
      .filter((_, index) => index % every === 0)
      .map(({ atSeconds, lagSeconds }) => `${Math.round(atSeconds)} s: ${lagSeconds.toFixed(1)}`);
    console.log(`\nLag at ${windowLabel(window, windows)}, every 10 s: ${course.join(', ')}`);
  }
}

/** The headline figures as charts (docs/BENCHMARKS.md embeds them): the apply ratios, and the lag during each sale. */
function chart(options: SaleBenchOptions, applies: ApplyResult[], windows: WindowResult[]): void {
  const orders = format(options.orders);
  writeChart('sale-apply-ratio', {
    title: `The replica's apply rate against the primary's, each alone (${orders} orders)`,
    width: 480,
    layer: [
      {
        data: {
          values: applies.map(({ setting, primaryOrdersPerSecond, applyOrdersPerSecond }) => ({
            setting,
            ratio: Number((applyOrdersPerSecond / primaryOrdersPerSecond).toFixed(2)),
          })),
        },
        mark: 'bar',
        encoding: {
          y: { field: 'setting', type: 'nominal', title: null, sort: null, axis: { labelLimit: 400 } },
          x: { field: 'ratio', type: 'quantitative', title: "replica's apply rate ÷ primary's rate" },
        },
      },
      {
        data: { values: [{ target: 1.3 }] },
        mark: { type: 'rule', strokeDash: [4, 4], color: 'firebrick' },
        encoding: { x: { field: 'target', type: 'quantitative' } },
      },
    ],
  });
  writeChart('sale-replica-lag', {
    title: `The replica's lag during a sale (${orders} orders, ${options.writers} writers)`,
    width: 480,
    height: 240,
    layer: [
      {
        data: {
          values: windows.flatMap((window) =>
            window.lag.map(({ atSeconds, lagSeconds }) => ({
              sale: `a sale at ${window.share} % of full speed${windowRedoLog(window, windows)}`,
              seconds: Number(atSeconds.toFixed(1)),
              lag: Number(lagSeconds.toFixed(2)),
            })),
          ),
        },
        mark: 'line',
        encoding: {
          x: { field: 'seconds', type: 'quantitative', title: 'seconds into the sale' },
          y: { field: 'lag', type: 'quantitative', title: 'lag (s)' },
          color: { field: 'sale', type: 'nominal', title: null, legend: { orient: 'top', labelLimit: 400 } },
        },
      },
      {
        // DB_REPLICA_MAX_LAG_S: past it, what only replicas serve carries Data-Staleness (docs/API.md §18).
        data: { values: [{ bound: 5 }] },
        mark: { type: 'rule', strokeDash: [4, 4], color: 'firebrick' },
        encoding: { y: { field: 'bound', type: 'quantitative' } },
      },
    ],
  });
}
