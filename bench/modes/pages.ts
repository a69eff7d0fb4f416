import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import type { Connection, RowDataPacket } from 'mysql2/promise';
import { waitFor } from '../../launchers/wait-for';
import { REPLICA_INDEX_PREFIX } from '../../src/orders/replica-indexes';
import { SKIP_BUDGET_S } from '../../src/orders/skip-limits';
import { foldCounts, growthPair, GROWTH_DATABASE, serviceLogFile, type GrowthPair } from '../lib/growth-servers';
import { median } from '../lib/measure';
import { startVariant, stop } from '../lib/servers';
import { timeOnce } from './shapes';
import { warm } from './growth';

const PORT = 3990;
/** Timed requests of each page, after one warm-up: the median and the slowest (p95 of so few is the slowest). */
const SAMPLES = 7;
/** Where a skip rate is measured: this far into the walk, or half the matches where fewer. */
const SKIP_OFFSET = 1_000_000;

/** Each sort with the index a replica walks it through, and a primary's where it has one, and the index a status's
 * orders are read through in that sort where one is led by the status (docs/API.md §14). */
const SORT_INDEXES: Array<{ field: string; column: string; replica: string; statusLed?: string; primary?: string }> = [
  {
    field: 'orderId',
    column: 'id',
    replica: 'PRIMARY',
    statusLed: `${REPLICA_INDEX_PREFIX}status`,
    primary: 'PRIMARY',
  },
  { field: 'userId', column: 'user_id', replica: `${REPLICA_INDEX_PREFIX}user_cover` },
  { field: 'concertId', column: 'concert_id', replica: `${REPLICA_INDEX_PREFIX}concert_cover` },
  {
    field: 'totalPrice',
    column: 'total_price',
    replica: `${REPLICA_INDEX_PREFIX}total_price`,
    statusLed: `${REPLICA_INDEX_PREFIX}status_total_price`,
  },
  {
    field: 'status',
    column: 'status',
    replica: `${REPLICA_INDEX_PREFIX}status`,
    statusLed: `${REPLICA_INDEX_PREFIX}status`,
  },
  {
    field: 'createdAt',
    column: 'created_at',
    replica: `${REPLICA_INDEX_PREFIX}created`,
    primary: 'idx_orders_created',
  },
  {
    field: 'updatedAt',
    column: 'updated_at',
    replica: `${REPLICA_INDEX_PREFIX}updated`,
    statusLed: `${REPLICA_INDEX_PREFIX}status_updated`,
  },
];
/** The filter sets a page by number is asked with (the bench data spans 2024-11-01 to 2026-10-31). */
const FILTERS: Array<[name: string, query: string, where: string]> = [
  ['none', '', ''],
  ['a status', 'orderStatus=REFUNDED', "status = 'REFUNDED'"],
  ['a status within a year', 'orderStatus=PAYMENT_COMPLETED&startDate=2025-01-01&endDate=2025-12-31', ''],
];
const POSITIONS: Array<[name: string, page: (last: number) => number]> = [
  ['1', () => 1],
  ['50', () => 50],
  ['10 %', (last) => Math.max(1, Math.round(last / 10))],
  ['50 %', (last) => Math.max(1, Math.round(last / 2))],
  ['90 %', (last) => Math.max(1, Math.round((last * 9) / 10))],
  ['last', (last) => last],
];

const format = (value: number) => Math.round(value).toLocaleString('en-US');

/** Index entries passed per second by the page statement's inner walk on a server: 20 ids past half the matches (at
 * most SKIP_OFFSET) of `index`, each entry checked against `where`; a walk's entries are its matches over their share.
 * Warm, the median of three after one; or the first touch alone, for a buffer pool that does not hold the walk. */
async function skipRate(
  connection: Connection,
  index: string,
  column: string,
  where: string,
  { firstTouch = false, direction = 'ASC' }: { firstTouch?: boolean; direction?: 'ASC' | 'DESC' } = {},
): Promise<number> {
  const filter = where ? `WHERE ${where}` : '';
  const [[{ matches, table }]] = await connection.query<RowDataPacket[]>(
    `SELECT (SELECT COUNT(*) FROM ${GROWTH_DATABASE}.orders ${filter}) AS matches,
            (SELECT COUNT(*) FROM ${GROWTH_DATABASE}.orders) AS \`table\``,
  );
  const offset = Math.min(SKIP_OFFSET, Math.floor(Number(matches) / 2));
  const sql = `SELECT o.id FROM ${GROWTH_DATABASE}.orders o INNER JOIN (SELECT i.id FROM ${GROWTH_DATABASE}.orders i
    FORCE INDEX (\`${index}\`) ${filter} ORDER BY i.${column} ${direction}, i.id ${direction} LIMIT 20 OFFSET ${offset}) p ON p.id = o.id`;
  const times: number[] = [];
  for (let sample = 0; sample <= (firstTouch ? 0 : 3); sample += 1) {
    const started = performance.now();
    await connection.query(sql);
    if (sample > 0 || firstTouch) times.push(performance.now() - started);
  }
  // An index led by the status holds its matches together: each entry passed is one.
  const led = index.endsWith('status') || index.includes('status_');
  const entries = where && !led ? (offset * Number(table)) / Number(matches) : offset;
  return entries / (median(times) / 1000);
}

/** The replica's buffer pool cut to a fourteenth of its data, as docs/SCALING.md sizes the worst case, and the
 * operating system's cache dropped where this process may; restored by the function returned. */
async function smallPool(connection: Connection): Promise<{ dropped: boolean; restore: () => Promise<void> }> {
  const [[{ pool, data }]] = await connection.query<RowDataPacket[]>(
    `SELECT @@innodb_buffer_pool_size AS pool, (SELECT SUM(DATA_LENGTH + INDEX_LENGTH) FROM information_schema.TABLES
      WHERE TABLE_SCHEMA = '${GROWTH_DATABASE}') AS data`,
  );
  const resized = async (bytes: number) => {
    await connection.query(`SET GLOBAL innodb_buffer_pool_size = ${bytes}`);
    await waitFor(
      'the buffer pool to be resized',
      async () => {
        const [[status]] = await connection.query<RowDataPacket[]>(
          "SHOW STATUS LIKE 'Innodb_buffer_pool_resize_status'",
        );
        return !/started|resizing|withdraw|allocat/i.test(String(status?.Value ?? ''));
      },
      { timeoutMs: 120_000, intervalMs: 200 },
    );
  };
  await resized(Math.max(128 * 2 ** 20, Math.floor(Number(data) / 14)));
  let dropped = true;
  try {
    writeFileSync('/proc/sys/vm/drop_caches', '3');
  } catch {
    dropped = false;
  }
  return { dropped, restore: () => resized(Number(pool)) };
}

async function skipRates(pair: GrowthPair): Promise<void> {
  console.log(`\n### Index entries passed per second on the way to a page\n`);
  console.log(
    `| server | sort | warm, forwards / backwards: no filter | a status (index) | pool a 14th, first touch backwards: no filter | a status | limit: slowest × ${SKIP_BUDGET_S} s |`,
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const which of ['replica', 'primary'] as const) {
    const connection = await pair.root(which);
    try {
      const rows: Array<{ field: string; index: string; filteredIndex: string; rates: number[] }> = [];
      for (const { field, column, replica, statusLed, primary } of SORT_INDEXES) {
        const index = which === 'replica' ? replica : primary;
        if (!index) continue;
        const filteredIndex = which === 'replica' ? (statusLed ?? index) : index;
        // Each way: a descending sort, and an ascending one's pages read from the end, walk the index backwards.
        const rates = [];
        for (const direction of ['ASC', 'DESC'] as const) {
          rates.push(await skipRate(connection, index, column, '', { direction }));
          rates.push(await skipRate(connection, filteredIndex, column, "status = 'REFUNDED'", { direction }));
        }
        rows.push({ field, index, filteredIndex, rates });
      }
      // The replica serves the walks: its worst case is a pool that holds little of them.
      if (which === 'replica') {
        const pool = await smallPool(connection);
        try {
          for (const row of rows) {
            const { column } = SORT_INDEXES.find(({ field }) => field === row.field)!;
            const cold = { firstTouch: true, direction: 'DESC' as const };
            row.rates.push(await skipRate(connection, row.index, column, '', cold));
            row.rates.push(await skipRate(connection, row.filteredIndex, column, "status = 'REFUNDED'", cold));
          }
        } finally {
          await pool.restore();
        }
        if (!pool.dropped) console.log("(the operating system's cache could not be dropped: first touches read it)");
      }
      for (const { field, filteredIndex, rates } of rows) {
        const [none, status, noneBack, statusBack, coldNone = NaN, coldStatus = NaN] = rates;
        const limit = Math.min(...rates) * SKIP_BUDGET_S;
        const cold = Number.isNaN(coldNone) ? '– | –' : `${format(coldNone)} | ${format(coldStatus)}`;
        const warm = `${format(none)} / ${format(noneBack)} | ${format(status)} / ${format(statusBack)} (${filteredIndex})`;
        console.log(`| ${which} | ${field} | ${warm} | ${cold} | ${format(limit)} |`);
      }
    } finally {
      await connection.end();
    }
  }
}

/** The statements a jumped page sent, from the replica's general log. */
async function jumpedPageSql(pair: GrowthPair, baseUrl: string, token: string, query: string): Promise<string[]> {
  const replica = await pair.root('replica');
  try {
    await replica.query("SET GLOBAL log_output = 'TABLE'");
    await replica.query('TRUNCATE TABLE mysql.general_log');
    await replica.query('SET GLOBAL general_log = ON');
    await timeOnce(`${baseUrl}/orders?${query}`, token);
    await replica.query('SET GLOBAL general_log = OFF');
    const [rows] = await replica.query<RowDataPacket[]>(
      `SELECT CONVERT(argument USING utf8mb4) AS statement FROM mysql.general_log
        WHERE command_type = 'Query' AND argument LIKE '%orders%' AND argument NOT LIKE '%general_log%'`,
    );
    return rows.map((row) => String(row.statement));
  } finally {
    await replica.end();
  }
}

/** Pages by number as the back-office asks them, for builds side by side: the page, and where to find it. */
const COMPARED: Array<[name: string, query: string, page: (last: number) => number]> = [
  ['default sort, page 5,000', '', () => 5_000],
  ['default sort, page 50,000', '', () => 50_000],
  ['default sort, page 250,000', '', () => 250_000],
  ['default sort, last page', '', (last) => last],
  ['createdAt,asc, page 400,000', 'sort=createdAt,asc', () => 400_000],
  ['REFUNDED, page 50,000', 'orderStatus=REFUNDED', () => 50_000],
  ['REFUNDED, last page', 'orderStatus=REFUNDED', (last) => last],
  [
    'PAYMENT_COMPLETED, Jun–Dec 2025, page 30,000',
    'orderStatus=PAYMENT_COMPLETED&startDate=2025-06-01&endDate=2025-12-31',
    () => 30_000,
  ],
  ['totalPrice,asc, last page', 'sort=totalPrice,asc', (last) => last],
  ['totalPrice,asc, middle', 'sort=totalPrice,asc', (last) => Math.round(last / 2)],
  ['updatedAt,desc, middle', 'sort=updatedAt,desc', (last) => Math.round(last / 2)],
];

/**
 * `--growth --pages --compare-builds=DIR,DIR [--orders 10000000]`: the pages of COMPARED on each build (its `dist/`),
 * one pair, the builds' requests interleaved with their order rotating: median of five after one, and the answers
 * other than 200.
 */
export async function compare(adminToken: string, orders: number, directories: string[]): Promise<void> {
  const pair = await growthPair(orders);
  const services: ChildProcess[] = [];
  try {
    await foldCounts(pair);
    await warm(pair, 'replica');
    const ports = directories.map((_, index) => PORT + 1 + index);
    for (const [index, cwd] of directories.entries()) {
      services.push(
        await startVariant({ label: cwd, port: ports[index], node: process.execPath, cwd, env: pair.environment }),
      );
    }
    const headers = { authorization: `Bearer ${adminToken}` };
    console.log(`\n## Pages by number at ${format(orders)} orders, ms (median of 5; answers other than 200)\n`);
    console.log(`| page | ${directories.join(' | ')} |`);
    console.log(`|---|${'---|'.repeat(directories.length)}`);
    for (const [name, query, pageOf] of COMPARED) {
      const first = await fetch(`http://127.0.0.1:${ports[0]}/orders?${query}`, { headers });
      const { totalPages } = (await first.json()) as { totalPages: number };
      const target = `/orders?${[query, `page=${pageOf(totalPages)}`].filter(Boolean).join('&')}`;
      const times = directories.map((): number[] => []);
      const statuses = directories.map(() => new Set<number>());
      for (let sample = 0; sample <= 5; sample += 1) {
        for (let step = 0; step < ports.length; step += 1) {
          const index = (step + sample) % ports.length;
          const { ms, status } = await timeOnce(`http://127.0.0.1:${ports[index]}${target}`, adminToken);
          if (status !== 200) statuses[index].add(status);
          if (sample > 0) times[index].push(ms);
        }
      }
      const cells = times.map((each, index) => {
        const refused = statuses[index].size > 0 ? ` (${[...statuses[index]].join(', ')})` : '';
        return `${median(each).toFixed(0)}${refused}`;
      });
      console.log(`| ${name} | ${cells.join(' | ')} |`);
    }
  } finally {
    for (const service of services) await stop(service);
    await pair.stop();
  }
}

/**
 * `--growth --pages [--orders 1000000,10000000]`: docs/API.md §22 on each growth pair. How many orders each sort's
 * index passes per second on its way to a page, and the limit derived from it; then pages by number across each
 * listing (1, 50, 10 %, 50 %, 90 %, last) for every sort, with and without a status and a date range, through the
 * service: median and slowest of seven, and the answers other than 200; and the statements of a jumped page.
 */
export async function run(adminToken: string, sizes: number[]): Promise<void> {
  for (const orders of sizes) {
    console.log(`\n## ${format(orders)} orders`);
    const pair = await growthPair(orders);
    let service: ChildProcess | undefined;
    try {
      await foldCounts(pair);
      await warm(pair, 'replica');
      await warm(pair, 'primary');
      await skipRates(pair);
      service = await startVariant({
        label: 'this build',
        port: PORT,
        node: process.execPath,
        env: pair.environment,
        logFile: serviceLogFile(`pages-${orders}`),
      });
      const baseUrl = `http://127.0.0.1:${PORT}`;
      console.log(
        `\n### Pages by number through the service, ms (median / slowest of ${SAMPLES}; answers other than 200)\n`,
      );
      console.log(`| filter | sort | ${POSITIONS.map(([name]) => name).join(' | ')} |`);
      console.log(`|---|---|${'---|'.repeat(POSITIONS.length)}`);
      for (const [filter, filterQuery] of FILTERS) {
        for (const { field } of SORT_INDEXES) {
          for (const direction of ['asc', 'desc']) {
            const query = [filterQuery, `sort=${field},${direction}`].filter(Boolean).join('&');
            const first = await fetch(`${baseUrl}/orders?${query}&page=1`, {
              headers: { authorization: `Bearer ${adminToken}` },
            });
            const { totalPages } = (await first.json()) as { totalPages: number };
            const cells = [];
            for (const [, pageOf] of POSITIONS) {
              const page = pageOf(Math.max(1, totalPages));
              const times: number[] = [];
              const statuses = new Set<number>();
              for (let sample = 0; sample <= SAMPLES; sample += 1) {
                const { ms, status } = await timeOnce(`${baseUrl}/orders?${query}&page=${page}`, adminToken);
                if (status !== 200) statuses.add(status);
                if (sample > 0) times.push(ms);
              }
              const refused = statuses.size > 0 ? ` (${[...statuses].join(', ')})` : '';
              cells.push(`${median(times).toFixed(0)} / ${Math.max(...times).toFixed(0)}${refused}`);
            }
            console.log(`| ${filter} | ${field},${direction} | ${cells.join(' | ')} |`);
          }
        }
      }
      const jumped = 'orderStatus=REFUNDED&sort=createdAt,desc&page=100000';
      console.log(`\n### The statements of a jumped page (${jumped}), as the replica logged them\n`);
      for (const statement of await jumpedPageSql(pair, baseUrl, adminToken, jumped)) console.log(`${statement};\n`);
    } finally {
      if (service) await stop(service);
      await pair.stop();
    }
  }
}
