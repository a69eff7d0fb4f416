import type { ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import type { RowDataPacket } from 'mysql2/promise';
import { writeChart } from '../lib/charts';
import {
  foldCounts,
  growthPair,
  GROWTH_DATABASE,
  serviceLogFile,
  type GrowthPair,
  type SeedRecord,
} from '../lib/growth-servers';
import { plantSale } from '../lib/sale-orders';
import { median } from '../lib/measure';
import { startVariant, stop } from '../lib/servers';
import { exportFor, type ExportResult } from './exports';
import { FILTER_SETS, PAGES, SORT_FIELDS, SORTS, time, timeOnce } from './shapes';

const PORT = 3980;

export interface GrowthOptions {
  /** Orders in each pair, smallest first: the ratios are taken against the first. */
  sizes: number[];
  /** How long each export is read, per sort. */
  exportSeconds: number;
  /** Orders of a sale the largest pair holds besides the seeded ones (planted where fewer). */
  saleOrders: number;
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

/**
 * Samples of each shape at each size, after a warm-up of each. The sizes are measured side by side, their requests
 * interleaved, so that a drift of the machine (a background flush, another process) falls on every size alike and
 * not on the one measured at that moment: the ratios are the point.
 */
const SAMPLES = 7;

/** One query on each size's service: a warm-up on each, then `SAMPLES` rounds of one request to each, in turn. */
async function timeSideBySide(baseUrls: string[], path: string, token: string): Promise<Timed[]> {
  const times = baseUrls.map((): number[] => []);
  const statuses = baseUrls.map((): string[] => []);
  for (let sample = 0; sample <= SAMPLES; sample += 1) {
    for (let step = 0; step < baseUrls.length; step += 1) {
      // Which size goes first rotates, so that none is always measured right after another's request.
      const index = (step + sample) % baseUrls.length;
      const { ms, status } = await timeOnce(`${baseUrls[index]}${path}`, token);
      if (status !== 200) statuses[index].push(String(status));
      if (sample > 0) times[index].push(ms);
    }
  }
  return baseUrls.map((_, index) => ({ medianMs: median(times[index]), statuses: statuses[index] }));
}

/** Every admin shape at every size, one client; one map per size. */
async function shapesOf(baseUrls: string[], adminToken: string): Promise<Array<Map<string, Timed>>> {
  const results = baseUrls.map(() => new Map<string, Timed>());
  for (const [filter, filterQuery] of FILTER_SETS) {
    process.stderr.write(`  ${filter}\n`);
    for (const sort of SORTS) {
      for (const page of PAGES) {
        const query = [filterQuery, `sort=${sort}`, `page=${page}`].filter(Boolean).join('&');
        const timed = await timeSideBySide(baseUrls, `/orders?${query}`, adminToken);
        timed.forEach((figures, index) => results[index].set(key(filter, sort, page), figures));
      }
    }
  }
  return results;
}

async function memberPages(baseUrls: string[], userToken: string): Promise<Array<Map<string, Timed>>> {
  const results = baseUrls.map(() => new Map<string, Timed>());
  for (const sort of SORTS.filter((sort) => !sort.startsWith('userId'))) {
    const timed = await timeSideBySide(baseUrls, `/orders?sort=${sort}`, userToken);
    timed.forEach((figures, index) => results[index].set(sort, figures));
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
export async function warm(pair: GrowthPair, which: 'primary' | 'replica'): Promise<void> {
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

interface ServiceRun {
  label: string;
  env: Record<string, string>;
  /** Where its log is kept, read back for what it warned of. */
  logFile: string;
}

/** An instance of the service on each environment at once, on ports of their own, each stopped once `work` is done. */
export async function withServices<T>(
  services: ServiceRun[],
  work: (baseUrls: string[]) => Promise<T>,
  started?: (pids: number[]) => void,
): Promise<{ result: T; warnings: Array<Map<string, number>> }> {
  const children: ChildProcess[] = [];
  try {
    for (const [index, { label, env, logFile }] of services.entries()) {
      rmSync(logFile, { force: true });
      children.push(await startVariant({ label, port: PORT + index, node: process.execPath, env, logFile }));
    }
    started?.(children.map((child) => child.pid!));
    const result = await work(services.map((_, index) => `http://127.0.0.1:${PORT + index}`));
    while (children.length > 0) await stop(children.pop()!);
    return { result, warnings: services.map(({ logFile }) => warningsIn(logFile)) };
  } finally {
    for (const child of children) await stop(child);
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
 * many orders (seeded once and kept, bench/lib/growth-servers.ts), all running at once, each with an instance of
 * the service reading from its replica; every admin shape and a member's pages at every size side by side, their
 * requests interleaved, and the walks by link at each; at the largest size, an export in every sort and every
 * shape on the primary alone. Prints each shape class at each size, with the ratio to the smallest.
 */
export async function run(adminToken: string, userToken: string, options: GrowthOptions): Promise<void> {
  const pairs: GrowthPair[] = [];
  try {
    for (const orders of options.sizes) {
      console.error(`${format(orders)} orders: the pair`);
      pairs.push(await growthPair(orders));
    }
    const largest = pairs.at(-1)!;
    if (options.saleOrders > 0) {
      const primary = await largest.root('primary');
      try {
        await primary.changeUser({ database: GROWTH_DATABASE });
        const planted = await plantSale(primary, options.saleOrders, largest.record.members);
        console.error(`${format(largest.record.orders)} orders: ${format(planted)} orders of a sale planted`);
      } finally {
        await primary.end();
      }
      await foldCounts(largest);
    }
    const footprints: Array<SizeResult['footprint']> = [];
    for (const pair of pairs) footprints.push(await footprintOf(pair));
    for (const pair of pairs) {
      console.error(`${format(pair.record.orders)} orders: warming the replica's buffer pool`);
      await warm(pair, 'replica');
    }
    const served = await withServices(
      pairs.map((pair) => ({
        label: 'with replica',
        env: pair.environment,
        logFile: serviceLogFile(`${pair.record.orders}-with-replica`),
      })),
      async (baseUrls) => {
        console.error('shapes with the replica, every size side by side');
        const shapes = await shapesOf(baseUrls, adminToken);
        const member = await memberPages(baseUrls, userToken);
        const links: LinkWalk[][] = [];
        for (const [index, baseUrl] of baseUrls.entries()) {
          console.error(`${format(pairs[index].record.orders)} orders: walks by link`);
          links.push(await linkWalks(baseUrl, { admin: adminToken, user: userToken }));
        }
        const exports: ExportResult[] = [];
        const queries = [...SORTS.map((sort) => `sort=${sort}`), 'orderStatus=REFUNDED&sort=userId,asc'];
        const runs: Array<['csv' | 'ndjson', string]> = [
          ...queries.map((query): ['csv', string] => ['csv', query]),
          ['ndjson', 'sort=createdAt,desc'],
          ['ndjson', 'sort=totalPrice,asc'],
        ];
        for (const [media, query] of runs) {
          console.error(`  export ${media} ${query}`);
          exports.push(await exportFor(baseUrls.at(-1)!, media, query, adminToken, options.exportSeconds));
        }
        return { shapes, member, links, exports };
      },
    );
    const { shapes, member, links, exports } = served.result;
    const sizes: SizeResult[] = pairs.map((pair, index) => ({
      orders: pair.record.orders,
      record: pair.record,
      shapes: shapes[index],
      member: member[index],
      links: links[index],
      footprint: footprints[index],
      warnings: served.warnings[index],
    }));

    const primaryOnly = Object.fromEntries(
      Object.entries(largest.environment).filter(([name]) => name !== 'DB_REPLICAS'),
    );
    console.error(`${format(largest.record.orders)} orders: warming the primary's buffer pool`);
    await warm(largest, 'primary');
    const single = await withServices(
      [
        {
          label: 'single server',
          env: primaryOnly,
          logFile: serviceLogFile(`${largest.record.orders}-single-server`),
        },
      ],
      ([baseUrl]) => singleServer(baseUrl, adminToken),
    );
    report(sizes, exports, single.result);
    chart(sizes, exports);
  } finally {
    while (pairs.length > 0) await pairs.pop()!.stop();
  }
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

  console.log(
    `\n## Admin shapes with the replica (one client, the sizes side by side: median of ${SAMPLES} after a warm-up)\n`,
  );
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
  let worstRatio = { ratio: 0, label: '' };
  for (const [filter] of FILTER_SETS) {
    const cells = SORT_FIELDS.map((field) => {
      const figures = sizes.map((size) => slowestOfClass(size, filter, field));
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

/** A shape class (a filter set and a sort field, both directions, pages 1 and 50): the slowest median of its shapes. */
function slowestOfClass(size: SizeResult, filter: string, field: string): number {
  return Math.max(
    ...[...size.shapes].filter(([shape]) => shape.startsWith(`${filter}|${field},`)).map(([, timed]) => timed.medianMs),
  );
}

/** The headline figures as charts (docs/BENCHMARKS.md embeds them): each shape class at each size, exports by sort. */
function chart(sizes: SizeResult[], exports: ExportResult[]): void {
  writeChart('growth-shape-classes', {
    title: `The back-office's shape classes at each size: the slowest median of each (filter set × sort field)`,
    data: {
      values: sizes.flatMap((size) =>
        FILTER_SETS.flatMap(([filter]) =>
          SORT_FIELDS.map((field) => ({
            orders: format(size.orders),
            filter,
            sort: field,
            ms: Number(slowestOfClass(size, filter, field).toFixed(1)),
          })),
        ),
      ),
    },
    mark: 'rect',
    encoding: {
      x: { field: 'sort', type: 'nominal', title: 'sort field', sort: SORT_FIELDS },
      y: { field: 'filter', type: 'nominal', title: null, sort: FILTER_SETS.map(([filter]) => filter) },
      column: { field: 'orders', type: 'ordinal', title: 'orders', sort: sizes.map(({ orders }) => format(orders)) },
      color: { field: 'ms', type: 'quantitative', title: 'ms', scale: { scheme: 'blues', domainMin: 0 } },
      tooltip: [{ field: 'ms', type: 'quantitative' }],
    },
  });
  if (exports.length === 0) return;
  writeChart('exports-by-sort', {
    title: `Exports at ${format(sizes.at(-1)!.orders)} orders, through the replica: rows per second by query`,
    width: 420,
    data: {
      values: exports.map(({ sort, rows, seconds }) => ({ query: sort, rowsPerSecond: Math.round(rows / seconds) })),
    },
    mark: 'bar',
    encoding: {
      y: { field: 'query', type: 'nominal', title: null, sort: '-x', axis: { labelLimit: 400 } },
      x: { field: 'rowsPerSecond', type: 'quantitative', title: 'rows per second' },
    },
  });
}
