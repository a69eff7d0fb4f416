import type { ChildProcess } from 'node:child_process';
import { basename } from 'node:path';
import type { BenchContext } from '../lib/context';
import { drain, median } from '../lib/measure';
import { startVariant, stop, type Variant } from '../lib/servers';

/** The back-office's questions, as an administrator asks them of the bench data (2024-11-01 to 2026-10-31). */
export const FILTER_SETS: Array<[name: string, query: string]> = [
  ['none', ''],
  ['a member', 'userId=1'],
  ['a concert', 'consertId=7'],
  ['a status', 'orderStatus=REFUNDED'],
  ['a month', 'startDate=2025-06-01&endDate=2025-06-30'],
  ['a status within a year', 'orderStatus=PAYMENT_COMPLETED&startDate=2025-01-01&endDate=2025-12-31'],
  ['concert with status', 'consertId=7&orderStatus=PAYMENT_COMPLETED'],
  ['member with status', 'userId=1&orderStatus=PAYMENT_COMPLETED'],
  ['since October', 'startDate=2026-10-01'],
  ['pending until March', 'orderStatus=PAYMENT_PENDING&endDate=2025-03-31'],
];
export const SORT_FIELDS = ['orderId', 'userId', 'concertId', 'totalPrice', 'status', 'createdAt', 'updatedAt'];
export const SORTS = SORT_FIELDS.flatMap((field) => [`${field},asc`, `${field},desc`]);
export const PAGES = [1, 50];
const TIMED = 3;
/** Upper bounds of the distribution's buckets, in ms. */
const BUCKETS = [20, 50, 100, 200, 300, 1000, 2000];

interface ShapeResult {
  filter: string;
  sort: string;
  page: number;
  /** Per build, in the order given. */
  medianMs: number[];
  /** Per build, the statuses other than 200 it answered. */
  refusals: string[][];
}

/**
 * `--shapes [--compare-builds=DIR,DIR]`: every filter set × sort order × page, one client, sequentially, on
 * this checkout's build or on each of those builds in turn (the order rotates per shape, so that drift spreads
 * over all): one request to warm the shape up, then the median of three. Prints how the medians are
 * distributed, the slowest shapes, and the last build's medians as a filter × sort grid per page.
 */
export async function run(context: BenchContext, directories: Array<string | undefined> = [undefined]): Promise<void> {
  const { adminToken } = context;
  const variants: Variant[] = directories.map((cwd, index) => ({
    label: cwd === undefined ? 'this build' : basename(cwd),
    port: 3960 + index,
    node: process.execPath,
    cwd,
  }));
  const children: ChildProcess[] = [];
  const results: ShapeResult[] = [];
  try {
    for (const variant of variants) children.push(await startVariant(variant));
    for (const [filter, filterQuery] of FILTER_SETS) {
      process.stderr.write(`${filter}\n`);
      for (const sort of SORTS) {
        for (const page of PAGES) {
          const query = [filterQuery, `sort=${sort}`, `page=${page}`].filter(Boolean).join('&');
          const result: ShapeResult = { filter, sort, page, medianMs: [], refusals: [] };
          const turn = results.length;
          for (let step = 0; step < variants.length; step += 1) {
            const index = (step + turn) % variants.length;
            const { medianMs, refusals } = await time(
              `http://127.0.0.1:${variants[index].port}/orders?${query}`,
              adminToken,
            );
            result.medianMs[index] = medianMs;
            result.refusals[index] = refusals;
            await drain(context);
          }
          results.push(result);
        }
      }
    }
  } finally {
    for (const child of children) await stop(child);
  }
  report(
    results,
    variants.map((variant) => variant.label),
  );
}

/** One request, its body read to the end: how long it took, and its status. */
export async function timeOnce(target: string, token: string): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const response = await fetch(target, { headers: { authorization: `Bearer ${token}` } });
  await response.arrayBuffer();
  return { ms: performance.now() - started, status: response.status };
}

export async function time(target: string, token: string): Promise<{ medianMs: number; refusals: string[] }> {
  const times: number[] = [];
  const refusals: string[] = [];
  for (let attempt = 0; attempt <= TIMED; attempt += 1) {
    const { ms, status } = await timeOnce(target, token);
    if (status !== 200) refusals.push(String(status));
    if (attempt > 0) times.push(ms);
  }
  return { medianMs: median(times), refusals };
}

function report(results: ShapeResult[], labels: string[]): void {
  const count = results.length;
  const last = labels.length - 1;
  console.log(`\n## Filter × sort × page (${count} shapes, one client, median of ${TIMED} after one warm-up)\n`);
  console.log(`| median within | ${labels.join(' | ')} |`);
  console.log(`|---|${'---|'.repeat(labels.length)}`);
  for (const bound of BUCKETS) {
    const cells = labels.map((_, index) => {
      const within = results.filter((result) => result.medianMs[index] <= bound).length;
      return `${within} (${((within / count) * 100).toFixed(1)} %)`;
    });
    console.log(`| ${bound} ms | ${cells.join(' | ')} |`);
  }
  labels.forEach((label, index) => {
    const refused = results.filter((result) => result.refusals[index].length > 0);
    console.log(`\n${label}: shapes with any answer other than 200: ${refused.length}`);
    for (const result of refused) {
      console.log(`- ${result.filter}, ${result.sort}, page ${result.page}: ${result.refusals[index].join(', ')}`);
    }
  });

  labels.forEach((label, index) => {
    console.log(`\n### The slowest shapes on ${label}, median ms\n`);
    console.log(`| filter | sort | page | ${labels.join(' | ')} |`);
    console.log(`|---|---|---|${'---|'.repeat(labels.length)}`);
    for (const result of [...results].sort((a, b) => b.medianMs[index] - a.medianMs[index]).slice(0, 10)) {
      const cells = result.medianMs.map((ms) => ms.toFixed(1));
      console.log(`| ${result.filter} | ${result.sort} | ${result.page} | ${cells.join(' | ')} |`);
    }
  });

  for (const page of PAGES) {
    console.log(`\n### Page ${page} on ${labels[last]}, median ms\n`);
    console.log(`| filter | ${SORTS.join(' | ')} |`);
    console.log(`|---|${'---|'.repeat(SORTS.length)}`);
    for (const [filter] of FILTER_SETS) {
      const row = SORTS.map((sort) => {
        const result = results.find((item) => item.filter === filter && item.sort === sort && item.page === page);
        return result ? result.medianMs[last].toFixed(0) : '';
      });
      console.log(`| ${filter} | ${row.join(' | ')} |`);
    }
  }
}
