import { createConnection, type Connection, type RowDataPacket } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { removeReplicaStructures } from '../../src/orders/replica-structures';
import { toDatabaseConfig } from '../../src/config/database.config';
import { validateEnvironment } from '../../src/config/environment';
import { READ_AFTER_GTID_HEADER } from '../../src/common/read-after-gtid';
import { freePort } from '../../launchers/mysql-server';
import { waitFor } from '../../launchers/wait-for';
import {
  caughtUp,
  foldCounts,
  growthPair,
  GROWTH_DATABASE,
  serviceLogFile,
  type GrowthPair,
} from '../lib/growth-servers';
import { thousands as format } from '../lib/measure';
import { DOWNLOAD_REASON } from '../lib/servers';
import { runSale, sleep, type SaleTally } from '../lib/sale-orders';
import { stripToBareTables, writeOutDirtyPages } from '../lib/write-schemas';
import { warm, withServices } from './growth';
import { servedCounts, startReadClient, type ClientRead, type ReaderTokens } from './sale';

export interface FailoverBenchOptions {
  orders: number;
  writers: number;
  /** The sale's rate, in per cent of the primary's full speed alone. */
  share: number;
  instances: number;
}

/** The phases after the kill, in seconds: HA tooling's detection, then the old primary back writable, then read-only. */
const PHASES = { ioStoppedBefore: 1.5, before: 20, detection: 5, promoted: 20, backWritable: 15, backReadOnly: 15 };
/** Probe orders are told apart by a concert of their own: the promoted server reuses lost orders' ids. */
const PROBE_CONCERT = 8_000_000;
const PROBE_LOOPS = 4;
const WRITE_RATE_SECONDS = 10;
/** Dirty pages (16 KiB each) below which the promoted server counts as settled between write rates. */
const SETTLED_DIRTY_PAGES = 2_000;

interface ProbeWrite {
  concert: number;
  member: number;
  gtid: string;
  ackedAt: number;
  port: number;
}
interface Page {
  kind: 'probe' | 'lost position' | 'surviving position' | ClientRead[0] | 'export';
  sentAt: number;
  doneAt: number;
  status: number;
  type: string;
  stale: boolean;
  member?: number;
  /** Probe concerts on the page. */
  shown?: number[];
  write?: ProbeWrite;
}

interface Sample {
  at: number;
  placed: number;
  served: Map<string, number>;
}

const problemType = (body: string) => {
  try {
    return String((JSON.parse(body) as { type?: string }).type ?? '');
  } catch {
    return '';
  }
};

/**
 * `--failover`: docs/API.md §20 measured on the growth pair (a copy of it: the failover leaves it unfit to reuse).
 * A sale at `share` % of the primary's full speed; `instances` of the service; members who place an order and list
 * theirs at once (half with their write's position), the back-office's pages, members' and an export throughout.
 * The replica stops fetching, the primary is killed, the replica promoted as orchestrator does after its detection
 * time and the sale moved to it; the old primary comes back writable with the lost writes, then read-only. Then the
 * sale's full speed on the promoted server: as promoted, after `npm run migration:run`, and on the bare tables.
 */
export async function run(tokens: ReaderTokens, options: FailoverBenchOptions) {
  const pair = await growthPair(options.orders, { copy: 'failover' });
  try {
    const primary = await pair.root('primary');
    await primary.query('SET GLOBAL sync_binlog = 1; SET GLOBAL innodb_flush_log_at_trx_commit = 1');
    await primary.end();
    await foldCounts(pair);
    console.error('warming both servers');
    await Promise.all([warm(pair, 'primary'), warm(pair, 'replica')]);
    const alone = await runSale(pair.primary.port, GROWTH_DATABASE, { connections: options.writers, seconds: 10 });
    const target = ((alone.placed / alone.seconds) * options.share) / 100;
    console.error(`full speed ${format(alone.placed / alone.seconds)} orders/s; the sale at ${format(target)}`);
    await caughtUp(pair);
    const metricsPorts = await Promise.all(Array.from({ length: options.instances }, () => freePort()));
    const { result } = await withServices(
      metricsPorts.map((port, index) => ({
        label: `failover-${index}`,
        env: { ...pair.environment, METRICS_PORT: String(port) },
        logFile: serviceLogFile(`${options.orders}-failover-${index}`),
      })),
      (baseUrls) => timeline(pair, tokens, options, target, baseUrls, metricsPorts),
    );
    report(result, alone.placed / alone.seconds);
    await writeRates(pair, options.writers);
  } finally {
    await pair.stop();
  }
}

async function timeline(
  pair: GrowthPair,
  tokens: ReaderTokens,
  options: FailoverBenchOptions,
  target: number,
  baseUrls: string[],
  metricsPorts: number[],
) {
  let writerPort = pair.primary.port;
  let running = true;
  const pages: Page[] = [];
  const writes: ProbeWrite[] = [];
  const samples: Sample[] = [];
  const events: Record<string, number> = {};
  const tally: SaleTally = { placed: 0, paid: 0, failures: {} };
  const sale = runSale(() => writerPort, GROWTH_DATABASE, {
    connections: options.writers,
    seconds: Object.values(PHASES).reduce((sum, seconds) => sum + seconds, 0),
    ordersPerSecond: target,
    tally,
  });
  const readClients = baseUrls.map((url) => startReadClient(url, tokens));
  const fetchPage = async (
    kind: Page['kind'],
    url: string,
    token: string,
    headers: Record<string, string> = {},
  ): Promise<Page> => {
    const sentAt = Date.now();
    try {
      const response = await fetch(url, { headers: { authorization: `Bearer ${token}`, ...headers } });
      const body = await response.text();
      const shown =
        response.status === 200 && kind !== 'export'
          ? (JSON.parse(body) as { elements: Array<{ concertId: number }> }).elements
              .map((element) => element.concertId)
              .filter((concert) => concert >= PROBE_CONCERT)
          : undefined;
      const page = {
        kind,
        sentAt,
        doneAt: Date.now(),
        status: response.status,
        type: response.status >= 400 ? problemType(body) : '',
        stale: response.headers.has('data-staleness'),
        shown,
      };
      pages.push(page);
      return page;
    } catch {
      // An export cut off after its status was sent.
      const page = { kind, sentAt, doneAt: Date.now(), status: 0, type: 'cut', stale: false };
      pages.push(page);
      return page;
    }
  };
  let probeCount = 0;
  const probe = async () => {
    let connection: Connection | undefined;
    while (running) {
      const index = probeCount++;
      const member = tokens.probeMembers[index % tokens.probeMembers.length];
      const port = writerPort;
      try {
        connection ??= await createConnection({ host: '127.0.0.1', port, user: 'root', database: GROWTH_DATABASE });
        await connection.query(
          `INSERT INTO orders (user_id, concert_id, total_price, status, created_at, updated_at)
           VALUES (?, ?, 55000, 'PAYMENT_COMPLETED', UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))`,
          [member.id, PROBE_CONCERT + index],
        );
        const [[{ gtid }]] = await connection.query<RowDataPacket[]>('SELECT @@last_gtid AS gtid');
        const write = {
          concert: PROBE_CONCERT + index,
          member: member.id,
          gtid: String(gtid),
          ackedAt: Date.now(),
          port,
        };
        writes.push(write);
        const withPosition = index % 2 === 1 ? { [READ_AFTER_GTID_HEADER]: write.gtid } : undefined;
        const page = await fetchPage(
          'probe',
          `${baseUrls[index % baseUrls.length]}/orders?size=100`,
          member.token,
          withPosition,
        );
        Object.assign(page, { member: member.id, write });
      } catch {
        connection?.destroy();
        connection = undefined;
        await sleep(100);
      }
    }
    connection?.destroy();
  };
  const exporter = async () => {
    for (let index = 0; running; index += 1) {
      const url = `${baseUrls[index % baseUrls.length]}/orders/export.csv?concertId=${1 + (index % 500)}&${DOWNLOAD_REASON}`;
      await fetchPage('export', url, tokens.admin);
    }
  };
  // Each second: the sale's orders placed, and the instances' pages by how they were served.
  const sampler = async () => {
    let [placedBefore, servedBefore] = [0, new Map<string, number>()];
    while (running) {
      await sleep(1000);
      const served = new Map<string, number>();
      for (const port of metricsPorts) {
        for (const [how, count] of await servedCounts(`http://127.0.0.1:${port}/metrics`).catch(
          () => new Map<string, number>(),
        ))
          served.set(how, (served.get(how) ?? 0) + count);
      }
      samples.push({
        at: Date.now(),
        placed: tally.placed - placedBefore,
        served: new Map([...served].map(([how, count]) => [how, count - (servedBefore.get(how) ?? 0)])),
      });
      [placedBefore, servedBefore] = [tally.placed, served];
    }
  };
  const clients = [...Array.from({ length: PROBE_LOOPS }, probe), exporter(), sampler()];

  await sleep(PHASES.before * 1000);
  const replica = await pair.root('replica');
  await replica.query('STOP SLAVE IO_THREAD');
  events.ioStopped = Date.now();
  await sleep(PHASES.ioStoppedBefore * 1000);
  await pair.primary.kill();
  events.killed = Date.now();
  await sleep(PHASES.detection * 1000);
  // As orchestrator promotes, and a primary runs durably.
  await replica.query(
    'STOP SLAVE; RESET SLAVE ALL; SET GLOBAL read_only = OFF; SET GLOBAL sync_binlog = 1; SET GLOBAL innodb_flush_log_at_trx_commit = 1',
  );
  events.promoted = Date.now();
  writerPort = pair.replica.port;
  const following = followTimes(metricsPorts, events.promoted);
  const [lost, surviving] = await lostAndSurviving(
    replica,
    writes.filter((write) => write.ackedAt < events.killed),
  );
  const positions = (async () => {
    for (let index = 0; running; index += 1) {
      const [kind, list] =
        index % 2 === 0 ? (['lost position', lost] as const) : (['surviving position', surviving] as const);
      const write = list[index % Math.max(1, list.length)];
      if (write === undefined) {
        await sleep(100);
        continue;
      }
      const member = tokens.probeMembers.find((probe) => probe.id === write.member)!;
      const page = await fetchPage(kind, `${baseUrls[index % baseUrls.length]}/orders?size=100`, member.token, {
        [READ_AFTER_GTID_HEADER]: write.gtid,
      });
      Object.assign(page, { member: write.member, write });
    }
  })();
  await sleep(PHASES.promoted * 1000);
  await pair.primary.restart();
  events.backWritable = Date.now();
  await sleep(PHASES.backWritable * 1000);
  const old = await pair.root('primary');
  await old.query('SET GLOBAL read_only = ON');
  await old.end();
  events.backReadOnly = Date.now();
  const saleTally = await sale;
  running = false;
  const reads = (await Promise.all(readClients.map((client) => client.stop()))).flat();
  await Promise.all([...clients, positions]);
  const survivors = await concertsOn(replica, writes);
  await replica.end();
  for (const [kind, , ms, status, type, stale, sentAt] of reads)
    pages.push({ kind, sentAt, doneAt: sentAt + ms, status, type, stale });
  return {
    pages,
    writes,
    survivors,
    lost,
    events,
    promotedPort: pair.replica.port,
    following: await following,
    samples,
    saleTally,
  };
}

type Timeline = Awaited<ReturnType<typeof timeline>>;

/** Each instance's time from the promotion to its metrics naming the promoted server as the primary followed. */
function followTimes(metricsPorts: number[], promotedAt: number): Promise<number[]> {
  return Promise.all(
    metricsPorts.map(async (port) => {
      await waitFor(
        'an instance to follow the promoted server',
        async () =>
          /^db_primary_current\{server="replica-1"\} 1$/m.test(
            await (await fetch(`http://127.0.0.1:${port}/metrics`)).text(),
          ),
        { timeoutMs: 60_000, intervalMs: 50 },
      );
      return Date.now() - promotedAt;
    }),
  );
}

/** The probe concerts a server holds. */
async function concertsOn(server: Connection, writes: ProbeWrite[]): Promise<Set<number>> {
  if (writes.length === 0) return new Set();
  const [rows] = await server.query<RowDataPacket[]>(
    `SELECT concert_id AS concert FROM ${GROWTH_DATABASE}.orders WHERE concert_id IN (?)`,
    [writes.map((write) => write.concert)],
  );
  return new Set(rows.map((row) => Number(row.concert)));
}

/** The writes acknowledged by the dead primary that the promoted server lacks, and those it holds. */
async function lostAndSurviving(promoted: Connection, writes: ProbeWrite[]): Promise<[ProbeWrite[], ProbeWrite[]]> {
  const held = await concertsOn(promoted, writes);
  return [writes.filter((write) => !held.has(write.concert)), writes.filter((write) => held.has(write.concert))];
}

/** How a page was answered, judged against what the promoted server holds at the end. */
function judge(page: Page, run: Timeline, survivors: Set<number>): string[] {
  const current = page.status === 200 && !page.stale;
  const verdicts = [current ? 'current' : page.status === 200 ? 'stale' : `${page.status} ${page.type}`.trim()];
  // A lost write's position is refused, or answered saying the page may miss writes: never as though it were shown.
  if (page.kind === 'lost position')
    verdicts.push(
      page.status === 409 && page.type.endsWith('/write-lost')
        ? 'lost refused'
        : page.status === 200 && page.stale && !page.shown?.includes(page.write!.concert)
          ? 'lost stale'
          : 'lost answered',
    );
  if (page.kind === 'surviving position')
    verdicts.push(
      page.status === 200 && page.shown?.includes(page.write!.concert) ? 'surviving honoured' : 'surviving not',
    );
  if (!current || page.shown === undefined || page.member === undefined) return verdicts;
  const missing = run.writes.some(
    (write) =>
      write.member === page.member &&
      write.ackedAt < page.sentAt &&
      survivors.has(write.concert) &&
      !page.shown!.includes(write.concert),
  );
  if (missing) verdicts.push('silently stale');
  if (page.sentAt >= run.events.promoted && page.shown.some((concert) => !survivors.has(concert)))
    verdicts.push('deposed current');
  return verdicts;
}

function report(run: Timeline, fullSpeed: number): void {
  const { events, survivors } = run;
  const secondOf = (at: number) => Math.floor((at - events.killed) / 1000);
  const rows = new Map<number, Map<string, number>>();
  const add = (second: number, key: string, count = 1) => {
    const row = rows.get(second) ?? new Map<string, number>();
    row.set(key, (row.get(key) ?? 0) + count);
    rows.set(second, row);
  };
  const totals = new Map<string, number>();
  for (const page of run.pages) {
    for (const verdict of judge(page, run, survivors)) {
      const key = page.kind === 'export' ? `export ${verdict === 'current' ? 'complete' : verdict}` : verdict;
      add(secondOf(page.sentAt), key);
      totals.set(key, (totals.get(key) ?? 0) + 1);
    }
  }
  for (const sample of run.samples) {
    add(secondOf(sample.at) - 1, 'placed', sample.placed);
    for (const [how, count] of sample.served) add(secondOf(sample.at) - 1, `served ${how}`, count);
  }
  const eventAt = new Map(Object.entries(events).map(([name, at]) => [secondOf(at), name]));
  const count = (row: Map<string, number> | undefined, key: string) => row?.get(key) ?? 0;
  const refusals = (row: Map<string, number>) =>
    [...row]
      .filter(([key]) => /^\d/.test(key) || key.startsWith('export 0') || key.startsWith('export 5'))
      .map(([key, n]) => `${key} ×${n}`)
      .join(', ');
  const served = (row: Map<string, number>) =>
    [...row]
      .filter(([key]) => key.startsWith('served '))
      .map(([key, n]) => `${key.slice(7)} ${n}`)
      .join(', ');
  console.log(
    `\nThe timeline, per second from the primary's kill (the sale at ${format(fullSpeed)} orders/s alone): pages ` +
      'current and with Data-Staleness (members, probes, the back-office), answers other than 200, silently stale ' +
      'pages, pages served as current by a deposed server, lost and surviving positions, exports, orders placed, ' +
      'and pages by how the instances served them.\n',
  );
  console.log(
    '| s | event | current | stale | other answers | silently stale | deposed as current | lost position refused / stale / answered as shown | surviving honoured / not | exports complete | placed | served |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const second of [...rows.keys()].sort((a, b) => a - b)) {
    const row = rows.get(second)!;
    console.log(
      `| ${second} | ${eventAt.get(second) ?? ''} | ${count(row, 'current')} | ${count(row, 'stale')} | ${refusals(row)} | ` +
        `${count(row, 'silently stale')} | ${count(row, 'deposed current')} | ` +
        `${count(row, 'lost refused')} / ${count(row, 'lost stale')} / ${count(row, 'lost answered')} | ` +
        `${count(row, 'surviving honoured')} / ${count(row, 'surviving not')} | ${count(row, 'export complete')} | ` +
        `${count(row, 'placed')} | ${served(row)} |`,
    );
  }
  const firstCurrent = Math.min(
    ...run.pages
      .filter(
        (page) =>
          page.kind === 'probe' &&
          page.write?.port === run.promotedPort &&
          page.status === 200 &&
          !page.stale &&
          page.shown?.includes(page.write.concert),
      )
      .map((page) => page.doneAt - events.promoted),
  );
  console.log(
    `\nFrom the promotion: the first page read against the new primary (a member's order placed on it, shown ` +
      `without Data-Staleness) after ${firstCurrent} ms; every instance following it after ` +
      `${Math.max(...run.following)} ms (${run.following.map((ms) => `${ms} ms`).join(', ')}).`,
  );
  console.log(
    `Probe writes: ${run.writes.length}, ${run.lost.length} acknowledged by the dead primary and lost. In all: ` +
      [...totals].map(([key, n]) => `${key} ${n}`).join(', ') +
      `. The sale: ${format(run.saleTally.placed)} orders placed, failures ${JSON.stringify(run.saleTally.failures)}.`,
  );
}

/**
 * The sale's full speed on the promoted server: as promoted, with the replicas' structures off (as
 * `npm run migration:run` takes them once a replica serves them), and on the bare tables.
 */
async function writeRates(pair: GrowthPair, writers: number): Promise<void> {
  const rate = async () => {
    // Each from a server that has written out what came before, so that none pays for another's pages.
    const promoted = await pair.root('replica');
    try {
      await writeOutDirtyPages(promoted, SETTLED_DIRTY_PAGES);
    } finally {
      await promoted.end();
    }
    const sale = await runSale(pair.replica.port, GROWTH_DATABASE, {
      connections: writers,
      seconds: WRITE_RATE_SECONDS,
    });
    return sale.placed / sale.seconds;
  };
  const rates: Array<[string, number]> = [];
  rates.push(["as promoted (the replicas' own column and indexes)", await rate()]);
  const promotedSource = new DataSource(
    buildDataSourceOptions(
      toDatabaseConfig(
        validateEnvironment({
          ...pair.environment,
          DB_PORT: String(pair.replica.port),
          DB_USERNAME: 'root',
          DB_PASSWORD: '',
        }),
      ),
      'maintenance',
    ),
  );
  await promotedSource.initialize();
  const runner = promotedSource.createQueryRunner();
  try {
    console.error(`removed ${(await removeReplicaStructures(runner)).join(', ')}`);
  } finally {
    await runner.release();
    await promotedSource.destroy();
  }
  // Dropping the stored column rebuilt the table: read into memory again, as the table it replaced was.
  await warm(pair, 'replica');
  rates.push(["the replicas' structures off: the project's schema", await rate()]);
  const promoted = await pair.root('replica');
  try {
    await stripToBareTables(promoted, GROWTH_DATABASE);
  } finally {
    await promoted.end();
  }
  const bare = await rate();
  console.log(
    `\nThe sale's full speed on the promoted server, ${writers} writers, ${WRITE_RATE_SECONDS} s each, in turn:\n`,
  );
  console.log('| the promoted server | orders/s | of the bare tables |');
  console.log('| --- | --- | --- |');
  for (const [label, ordersPerSecond] of [
    ...rates,
    ['bare tables (triggers and secondary indexes dropped)', bare] as const,
  ])
    console.log(`| ${label} | ${format(ordersPerSecond)} | ${(ordersPerSecond / bare).toFixed(2)}× |`);
}
