import type { ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import type { RowDataPacket } from 'mysql2/promise';
import { growthPair, serviceLogFile, type GrowthPair, type SeedRecord } from '../lib/growth-servers';
import { median } from '../lib/measure';
import { startVariant, stop } from '../lib/servers';
import { exportFor, type ExportResult } from './exports';
import { FILTER_SETS, PAGES, SORT_FIELDS, SORTS, time } from './shapes';

const PORT = 3980;

export interface GrowthOptions {
  /** Orders in each pair, smallest first: the ratios are taken against the first. */
  sizes: number[];
  /** How long each export is read, per sort. */
  exportSeconds: number;
}

interface Timed {
  medianMs: number;
  statuses: string[];
}

/** One size's figures. */
interface SizeResult {
  orders: number;
  record: SeedRecord;
  /** Admin shapes (filter set × sort × page) with the replica. */
  shapes: Map<string, Timed>;
  /** A member's first page in each sort. */
  member: Map<string, Timed>;
  /** Data and index bytes of `orders` and `order_seats` on each server. */
  footprint: { primary: number; replica: number; replicaIndexes: number };
  /** Walks by `next` links: page 2 by number against the pages the links reach. */
  links: LinkWalk[];
  /** What the service logged as warnings or errors while measured with the replica, and how often. */
  warnings: Map<string, number>;
}

interface LinkWalk {
  walk: string;
  pageTwoMs: number;
  /** The median of the linked pages past the tenth, and the slowest of them. */
  linkedMs: number;
  slowestLinkedMs: number;
  /** Answers other than 200 on the way. */
  refusals: string[];
}

/** Walks a client takes by `next` links (docs/API.md §13), as the back-office and a member do. */
const LINK_WALKS: Array<{ walk: string; role: 'admin' | 'user'; query: string }> = [
  { walk: 'admin, newest first', role: 'admin', query: '' },
  { walk: 'admin, by price, highest first', role: 'admin', query: 'sort=totalPrice,desc' },
  { walk: 'admin, by member', role: 'admin', query: 'sort=userId,asc' },
  { walk: 'admin, one status, by update time', role: 'admin', query: 'orderStatus=REFUNDED&sort=updatedAt,asc' },
  { walk: 'member, newest first', role: 'user', query: '' },
];
/** Pages followed by link in each walk; the first ten are left out of its median, as a walk's start. */
const LINKED_PAGES = 60;

interface SingleResult {
  shape: string;
  status: number;
  ms: number;
}

const key = (filter: string, sort: string, page: number) => `${filter}|${sort}|${page}`;
const format = (value: number) => value.toLocaleString('en-US');
const ms = (value: number) => (value >= 10 ? value.toFixed(0) : value.toFixed(1));

/** Every admin shape, one warm-up and the median of three, one client. */
async function shapesOf(baseUrl: string, adminToken: string): Promise<Map<string, Timed>> {
  const results = new Map<string, Timed>();
  for (const [filter, filterQuery] of FILTER_SETS) {
    process.stderr.write(`  ${filter}\n`);
    for (const sort of SORTS) {
      for (const page of PAGES) {
        const query = [filterQuery, `sort=${sort}`, `page=${page}`].filter(Boolean).join('&');
        const { medianMs, refusals } = await time(`${baseUrl}/orders?${query}`, adminToken);
        results.set(key(filter, sort, page), { medianMs, statuses: refusals });
      }
    }
  }
  return results;
}

async function memberPages(baseUrl: string, userToken: string): Promise<Map<string, Timed>> {
  const results = new Map<string, Timed>();
  for (const sort of SORTS.filter((sort) => !sort.startsWith('userId'))) {
    const { medianMs, refusals } = await time(`${baseUrl}/orders?sort=${sort}`, userToken);
    results.set(sort, { medianMs, statuses: refusals });
  }
  return results;
}

const nextLink = (header: string | null): string | undefined => /<([^>]+)>; rel="next"/.exec(header ?? '')?.[1];

/**
 * Each walk: page 2 by its number, then the walk from page 1 by `next` links, followed once to learn its links
 * (a link names the same page each time it is written), and each linked page timed as page 2 is: one warm-up and
 * the median of three. A page reached by link should cost about what page 2 does, however far the walk has gone.
 */
async function linkWalks(baseUrl: string, tokens: Record<'admin' | 'user', string>): Promise<LinkWalk[]> {
  const walks: LinkWalk[] = [];
  for (const { walk, role, query } of LINK_WALKS) {
    const headers = { authorization: `Bearer ${tokens[role]}` };
    const pageTwo = await time(`${baseUrl}/orders?${[query, 'page=2'].filter(Boolean).join('&')}`, tokens[role]);
    const refusals = [...pageTwo.refusals];
    const targets: string[] = [];
    let target: string | undefined = `/orders${query ? `?${query}` : ''}`;
    for (let page = 1; page <= LINKED_PAGES && target; page += 1) {
      const response = await fetch(`${baseUrl}${target}`, { headers });
      await response.arrayBuffer();
      if (response.status !== 200) refusals.push(String(response.status));
      if (page > 10) targets.push(target);
      target = nextLink(response.headers.get('link'));
    }
    const linked: number[] = [];
    for (const page of targets) {
      const timed = await time(`${baseUrl}${page}`, tokens[role]);
      linked.push(timed.medianMs);
      refusals.push(...timed.refusals);
    }
    walks.push({
      walk,
      pageTwoMs: pageTwo.medianMs,
      linkedMs: median(linked),
      slowestLinkedMs: Math.max(...linked),
      refusals,
    });
  }
  return walks;
}

async function footprintOf(pair: GrowthPair): Promise<SizeResult['footprint']> {
  const bytes = async (which: 'primary' | 'replica', indexesOnly: boolean) => {
    const connection = await pair.root(which);
    try {
      const [[row]] = await connection.query<RowDataPacket[]>(
        `SELECT SUM(${indexesOnly ? '0' : 'DATA_LENGTH'} + INDEX_LENGTH) AS bytes FROM information_schema.TABLES
          WHERE TABLE_SCHEMA = 'orders_bench' AND TABLE_NAME IN ('orders', 'order_seats')`,
      );
      return Number(row.bytes);
    } finally {
      await connection.end();
    }
  };
  const primary = await bytes('primary', false);
  const replica = await bytes('replica', false);
  return { primary, replica, replicaIndexes: replica - primary };
}

/**
 * Reads every index of `orders` and the seats on a server once, as weeks of listings would have: the figures are of
 * a server in service, not of one just started (a cold page costs a disk read per order, and the seeding and the
 * replica's own indexes leave little of the primary's files in the operating system's cache).
 */
async function warm(pair: GrowthPair, which: 'primary' | 'replica'): Promise<void> {
  const connection = await pair.root(which);
  try {
    const [indexes] = await connection.query<RowDataPacket[]>(
      `SELECT DISTINCT INDEX_NAME AS name FROM information_schema.STATISTICS
        WHERE TABLE_SCHEMA = 'orders_bench' AND TABLE_NAME = 'orders'`,
    );
    for (const { name } of indexes) {
      await connection.query(`SELECT COUNT(*) FROM orders_bench.orders FORCE INDEX (\`${String(name)}\`)`);
    }
    await connection.query('SELECT SUM(total_price) FROM orders_bench.orders');
    // Exports and pages read each order's seats by its id: in any order but by id, seats read cold one page at a time.
    await connection.query('SELECT SUM(price) FROM orders_bench.order_seats');
  } finally {
    await connection.end();
  }
}

/** The service on `env`, its log kept in `logFile` and read back for what it warned of. */
async function withService<T>(
  label: string,
  env: Record<string, string>,
  logFile: string,
  work: (baseUrl: string) => Promise<T>,
): Promise<{ result: T; warnings: Map<string, number> }> {
  rmSync(logFile, { force: true });
  let child: ChildProcess | undefined;
  try {
    child = await startVariant({ label, port: PORT, node: process.execPath, env, logFile });
    const result = await work(`http://127.0.0.1:${PORT}`);
    await stop(child);
    child = undefined;
    return { result, warnings: warningsIn(logFile) };
  } finally {
    if (child) await stop(child);
  }
}

/** The log's warnings and errors (pino levels 40 and above), by message, with how often each was logged. */
function warningsIn(logFile: string): Map<string, number> {
  const warnings = new Map<string, number>();
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    const { level, msg } = JSON.parse(line) as { level?: number; msg?: string };
    if ((level ?? 0) < 40) continue;
    // Request ids and figures vary; the message without them groups what is the same warning.
    const message = String(msg)
      .replace(/\[request [^\]]*\]/g, '')
      .replace(/\d+(\.\d+)?/g, 'N');
    warnings.set(message, (warnings.get(message) ?? 0) + 1);
  }
  return warnings;
}

/**
 * `--growth`: docs/API.md §14 measured. For each size, a primary and a replica in GTID replication holding that
 * many orders (seeded once and kept, bench/lib/growth-servers.ts); every admin shape and a member's pages through
 * the service with the replica; at the largest size, an export in every sort and every shape on the primary alone.
 * Prints each shape class at each size side by side, with the ratio to the smallest.
 */
export async function run(adminToken: string, userToken: string, options: GrowthOptions): Promise<void> {
  const sizes: SizeResult[] = [];
  let exports: ExportResult[] = [];
  let single: SingleResult[] = [];
  for (const orders of options.sizes) {
    console.error(`${format(orders)} orders: the pair`);
    const pair = await growthPair(orders);
    try {
      const footprint = await footprintOf(pair);
      console.error(`${format(orders)} orders: warming the replica's buffer pool`);
      await warm(pair, 'replica');
      const logFile = serviceLogFile(`${orders}-with-replica`);
      const served = await withService('with replica', pair.environment, logFile, async (baseUrl) => {
        console.error(`${format(orders)} orders: shapes with the replica`);
        const shapes = await shapesOf(baseUrl, adminToken);
        const member = await memberPages(baseUrl, userToken);
        console.error(`${format(orders)} orders: walks by link`);
        const links = await linkWalks(baseUrl, { admin: adminToken, user: userToken });
        if (orders === Math.max(...options.sizes)) {
          exports = [];
          const queries = [...SORTS.map((sort) => `sort=${sort}`), 'orderStatus=REFUNDED&sort=userId,asc'];
          const runs: Array<['csv' | 'ndjson', string]> = [
            ...queries.map((query): ['csv', string] => ['csv', query]),
            ['ndjson', 'sort=createdAt,desc'],
            ['ndjson', 'sort=totalPrice,asc'],
          ];
          for (const [media, query] of runs) {
            console.error(`  export ${media} ${query}`);
            exports.push(await exportFor(baseUrl, media, query, adminToken, options.exportSeconds));
          }
        }
        return { shapes, member, links };
      });
      const { shapes, member, links } = served.result;
      sizes.push({ orders, record: pair.record, shapes, member, links, footprint, warnings: served.warnings });
      if (orders === Math.max(...options.sizes)) {
        const primaryOnly = Object.fromEntries(
          Object.entries(pair.environment).filter(([name]) => name !== 'DB_REPLICAS'),
        );
        const logFile = serviceLogFile(`${orders}-single-server`);
        console.error(`${format(orders)} orders: warming the primary's buffer pool`);
        await warm(pair, 'primary');
        single = (
          await withService('single server', primaryOnly, logFile, (baseUrl) => singleServer(baseUrl, adminToken))
        ).result;
      }
    } finally {
      await pair.stop();
    }
  }
  report(sizes, exports, single);
}

/** Every shape once warmed, on the primary alone: each is answered 200 or refused, and how fast. */
async function singleServer(baseUrl: string, adminToken: string): Promise<SingleResult[]> {
  console.error('single server: every shape');
  const results: SingleResult[] = [];
  for (const [filter, filterQuery] of FILTER_SETS) {
    for (const sort of SORTS) {
      for (const page of PAGES) {
        const url = `${baseUrl}/orders?${[filterQuery, `sort=${sort}`, `page=${page}`].filter(Boolean).join('&')}`;
        const times: number[] = [];
        let status = 0;
        for (let attempt = 0; attempt < 3; attempt += 1) {
          const started = performance.now();
          const response = await fetch(url, { headers: { authorization: `Bearer ${adminToken}` } });
          await response.arrayBuffer();
          status = response.status;
          if (attempt > 0) times.push(performance.now() - started);
        }
        results.push({ shape: key(filter, sort, page), status, ms: median(times) });
      }
    }
  }
  return results;
}

function report(sizes: SizeResult[], exports: ExportResult[], single: SingleResult[]): void {
  const [base] = sizes;
  const largest = sizes.at(-1)!;
  console.log('\n## Seeding (kept between runs)\n');
  console.log('| orders | load (migrate, seed, indexes, counts) | copy to the replica | replica indexes | total |');
  console.log('|---|---|---|---|---|');
  for (const { record } of sizes) {
    console.log(
      `| ${format(record.orders)} | ${record.loadSeconds} s | ${record.copySeconds} s | ${record.replicaIndexSeconds} s | ${record.totalSeconds} s |`,
    );
  }

  console.log('\n## Footprint of `orders` and `order_seats` (data and indexes, InnoDB)\n');
  console.log('| orders | primary | replica | of which the replica’s own indexes |');
  console.log('|---|---|---|---|');
  const gb = (bytes: number) => `${(bytes / 2 ** 30).toFixed(2)} GiB`;
  for (const { orders, footprint } of sizes) {
    console.log(
      `| ${format(orders)} | ${gb(footprint.primary)} | ${gb(footprint.replica)} | ${gb(footprint.replicaIndexes)} |`,
    );
  }

  console.log('\n## Admin shapes with the replica (one client, median of 3 after a warm-up)\n');
  console.log(`| | ${sizes.map(({ orders }) => format(orders)).join(' | ')} |`);
  console.log(`|---|${'---|'.repeat(sizes.length)}`);
  const all = (size: SizeResult) => [...size.shapes.values()];
  const row = (label: string, cell: (size: SizeResult) => string) =>
    console.log(`| ${label} | ${sizes.map(cell).join(' | ')} |`);
  row('answered 200 every time', (size) => String(all(size).filter((t) => t.statuses.length === 0).length));
  for (const bound of [50, 100, 300]) {
    row(`median ≤ ${bound} ms`, (size) => {
      const within = all(size).filter((t) => t.medianMs <= bound).length;
      return `${within} (${((within / all(size).length) * 100).toFixed(1)} %)`;
    });
  }
  row('median of the medians', (size) => `${ms(median(all(size).map((t) => t.medianMs)))} ms`);
  row('slowest', (size) => `${ms(Math.max(...all(size).map((t) => t.medianMs)))} ms`);
  row(
    'a member’s page, slowest sort',
    (size) => `${ms(Math.max(...[...size.member.values()].map((t) => t.medianMs)))} ms`,
  );

  console.log(`\n### The slowest shapes at ${format(largest.orders)}\n`);
  console.log(`| filter | sort | page | ${sizes.map(({ orders }) => format(orders)).join(' | ')} |`);
  console.log(`|---|---|---|${'---|'.repeat(sizes.length)}`);
  const slowest = [...largest.shapes].sort(([, a], [, b]) => b.medianMs - a.medianMs).slice(0, 10);
  for (const [shape] of slowest) {
    const [filter, sort, page] = shape.split('|');
    console.log(
      `| ${filter} | ${sort} | ${page} | ${sizes.map((size) => ms(size.shapes.get(shape)!.medianMs)).join(' | ')} |`,
    );
  }

  console.log(
    `\n### Shape classes (filter set × sort field, both directions and pages 1 and 50): slowest median, ms, and the ratio to ${format(base.orders)}\n`,
  );
  console.log(`| filter | ${SORT_FIELDS.join(' | ')} |`);
  console.log(`|---|${'---|'.repeat(SORT_FIELDS.length)}`);
  const classOf = (size: SizeResult, filter: string, field: string) =>
    Math.max(
      ...[...size.shapes]
        .filter(([shape]) => shape.startsWith(`${filter}|${field},`))
        .map(([, timed]) => timed.medianMs),
    );
  let worstRatio = { ratio: 0, label: '' };
  for (const [filter] of FILTER_SETS) {
    const cells = SORT_FIELDS.map((field) => {
      const figures = sizes.map((size) => classOf(size, filter, field));
      const ratio = figures.at(-1)! / figures[0];
      if (ratio > worstRatio.ratio) worstRatio = { ratio, label: `${filter}, ${field}` };
      return `${figures.map(ms).join(' → ')} (${ratio.toFixed(2)}×)`;
    });
    console.log(`| ${filter} | ${cells.join(' | ')} |`);
  }
  console.log(`\nLargest growth: ${worstRatio.label}, ${worstRatio.ratio.toFixed(2)}×`);

  for (const { orders, shapes } of sizes) {
    const other = [...shapes].filter(([, timed]) => timed.statuses.length > 0);
    console.log(
      `\nShapes answered other than 200 at ${format(orders)}: ${other.length === 0 ? 'none' : other.map(([shape, timed]) => `${shape.replace(/\|(\d+)$/, ', page $1').replace('|', ', ')} (${timed.statuses.join(', ')})`).join('; ')}`,
    );
  }

  console.log(
    '\n### Walks by `next` link (one client; page 2 and each linked page from 11 to 60 the median of three after a warm-up)\n',
  );
  console.log('| walk | orders | page 2, ms | linked pages, median ms | slowest linked, ms | median against page 2 |');
  console.log('|---|---|---|---|---|---|');
  for (const { orders, links } of sizes) {
    for (const { walk, pageTwoMs, linkedMs, slowestLinkedMs, refusals } of links) {
      const refused = refusals.length === 0 ? '' : ` (answers other than 200: ${refusals.join(', ')})`;
      console.log(
        `| ${walk} | ${format(orders)} | ${ms(pageTwoMs)} | ${ms(linkedMs)} | ${ms(slowestLinkedMs)} | ${(linkedMs / pageTwoMs).toFixed(2)}×${refused} |`,
      );
    }
  }

  for (const { orders, warnings } of sizes) {
    const logged = [...warnings].map(([message, count]) => `${count} × ${message}`);
    console.log(
      `\nThe service's warnings and errors at ${format(orders)}, with the replica: ${logged.length === 0 ? 'none' : `\n\n- ${logged.join('\n- ')}`}`,
    );
  }

  if (exports.length > 0) {
    console.log(`\n## Exports at ${format(largest.orders)} (admin, each read for up to the given time)\n`);
    console.log('| query | rows | rows/s | first third, rows/s | last third, rows/s |');
    console.log('|---|---|---|---|---|');
    for (const result of exports) {
      console.log(
        `| ${result.sort} | ${format(result.rows)} | ${format(Math.round(result.rows / result.seconds))} | ${format(Math.round(result.firstThird))} | ${format(Math.round(result.lastThird))} |`,
      );
    }
  }

  if (single.length > 0) {
    console.log(`\n## The primary alone at ${format(largest.orders)} (every shape, median of 2 after a warm-up)\n`);
    const byStatus = new Map<number, SingleResult[]>();
    for (const result of single) byStatus.set(result.status, [...(byStatus.get(result.status) ?? []), result]);
    console.log('| answer | shapes | slowest |');
    console.log('|---|---|---|');
    for (const [status, results] of [...byStatus].sort(([a], [b]) => a - b)) {
      console.log(`| ${status} | ${results.length} | ${ms(Math.max(...results.map((r) => r.ms)))} ms |`);
    }
    const refused = single.filter((result) => result.status === 422);
    const classes = new Set(
      refused.map(({ shape }) =>
        shape
          .split('|')
          .slice(0, 2)
          .join(', ')
          .replace(/,(asc|desc)$/, ''),
      ),
    );
    console.log(`\nRefused (422) classes: ${[...classes].join('; ')}`);
  }
}
