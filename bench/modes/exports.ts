import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchContext } from '../lib/context';
import { median } from '../lib/measure';
import { DOWNLOAD_REASON, startVariant, stop, type Variant } from '../lib/servers';

const PORT = 3971;
/** How long the link walk it is compared with runs: long enough for a steady rate, short of walking 10,000 pages. */
const WALK_SECONDS = 10;

/** The service process's peak resident memory so far (Linux), in MB. */
const peakRssMb = (child: ChildProcess): number => {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return Math.round(Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024);
};

/** Resets the peak that `peakRssMb` reads (Linux: 5 to clear_refs), so that the next reading is of what follows. */
const resetPeakRss = (child: ChildProcess): void => writeFileSync(`/proc/${child.pid}/clear_refs`, '5');

/** Line ends in a chunk, found natively: a byte-by-byte loop here would slow the client more than the service. */
function newlinesIn(chunk: Uint8Array): number {
  const buffer = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  let count = 0;
  for (let at = buffer.indexOf(0x0a); at !== -1; at = buffer.indexOf(0x0a, at + 1)) count += 1;
  return count;
}

export interface ExportResult {
  sort: string;
  rows: number;
  seconds: number;
  /** Rows per second over the first and the last third of the time it was read. */
  firstThird: number;
  lastThird: number;
}

/** Reads an export for `seconds` (or to its end), counting rows as they arrive. */
export async function exportFor(
  baseUrl: string,
  media: 'csv' | 'ndjson',
  query: string,
  token: string,
  seconds: number,
): Promise<ExportResult> {
  const controller = new AbortController();
  let started = performance.now();
  const arrivals: Array<[atMs: number, rows: number]> = [];
  let rows = 0;
  const request = () => {
    started = performance.now();
    return fetch(`${baseUrl}/orders/export.${media}?${[query, DOWNLOAD_REASON].filter(Boolean).join('&')}`, {
      headers: { authorization: `Bearer ${token}` },
      signal: controller.signal,
    });
  };
  let response = await request();
  // The export cut off before this one still holds the caller's one export until the service has seen it go.
  for (let attempt = 0; response.status === 429 && attempt < 50; attempt += 1) {
    await response.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 200));
    response = await request();
  }
  if (!response.ok || !response.body) {
    const problem = (await response.json().catch(() => ({}))) as { type?: string };
    return {
      sort: `${query}: answered ${response.status} ${problem.type ?? ''}`,
      rows: 0,
      seconds: 0,
      firstThird: 0,
      lastThird: 0,
    };
  }
  let cut = false;
  try {
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      rows += newlinesIn(chunk);
      const at = performance.now() - started;
      arrivals.push([at, rows]);
      if (at > seconds * 1000) {
        cut = true;
        break;
      }
    }
    // A CSV export begins with its header line; a complete NDJSON one ends with its trailer line: neither is an order.
    if (media === 'csv') rows -= 1;
    else if (!cut) rows -= 1;
  } finally {
    controller.abort();
  }
  const elapsed = arrivals.at(-1)?.[0] ?? 1;
  const third = elapsed / 3;
  const rowsAt = (atMs: number) => arrivals.filter(([at]) => at <= atMs).at(-1)?.[1] ?? 0;
  return {
    sort: `${media} ${query}`,
    rows,
    seconds: elapsed / 1000,
    firstThird: rowsAt(third) / (third / 1000),
    lastThird: (rows - rowsAt(elapsed - third)) / (third / 1000),
  };
}

/**
 * Reads an export to its end: rows (lines, the CSV header and the NDJSON trailer aside), first byte and total time.
 * A workbook is zipped, so its lines say nothing: its rows are the count `rowsOf` gives, that of a CSV of the same query.
 */
async function exportOnce(url: string, token: string, rowsOf?: number) {
  const started = performance.now();
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok || !response.body) throw new Error(`${url} answered ${response.status}`);
  let firstByteMs: number | undefined;
  let lines = 0;
  let bytes = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    firstByteMs ??= performance.now() - started;
    bytes += chunk.length;
    lines += newlinesIn(chunk);
  }
  const seconds = (performance.now() - started) / 1000;
  return { rows: rowsOf ?? lines - 1, firstByteMs: firstByteMs ?? 0, seconds, megabytes: bytes / 1e6 };
}

/** The listing's statements running on the bench database now (the background count folding's writes aside). */
async function runningStatements(context: BenchContext): Promise<number> {
  const monitor = await context.monitor();
  const rows: Array<{ running: number | string }> = await monitor.query(
    `SELECT COUNT(*) AS running FROM information_schema.PROCESSLIST
      WHERE DB = ? AND COMMAND = 'Query' AND ID <> CONNECTION_ID() AND INFO LIKE 'SELECT%'`,
    [context.env.DB_DATABASE],
  );
  return Number(rows[0].running);
}

async function selectsSoFar(context: BenchContext): Promise<number> {
  const monitor = await context.monitor();
  const rows: Array<{ Value: string }> = await monitor.query("SHOW GLOBAL STATUS LIKE 'Com_select'");
  return Number(rows[0].Value);
}

/**
 * `--exports`: docs/API.md §13's export targets on this build. Every order as
 * CSV, NDJSON and XLSX, `rounds` times each: rows per second, the first byte,
 * and the service's peak RSS in each format; beside it, the rate of the only way there was
 * before, walking `next` links of pages of 100. Then a CSV export read to
 * half way and cancelled: statements still running 1 s later. Then one the
 * client stops reading: statements sent in the 2 s after its buffers filled.
 */
export async function run(context: BenchContext): Promise<void> {
  const { rounds, adminToken } = context;
  const base = `http://127.0.0.1:${PORT}`;
  let child: ChildProcess | undefined;
  const lines: string[] = [];
  try {
    child = await startVariant({ label: 'this build', port: PORT, node: process.execPath });
    const server = child;
    const results: Record<string, Array<Awaited<ReturnType<typeof exportOnce>>>> = { csv: [], ndjson: [], xlsx: [] };
    const peaks: Record<string, number> = {};
    // Format by format, each with the service's peak RSS reset before it, so that each peak is that format's own.
    for (const format of ['csv', 'ndjson', 'xlsx'] as const) {
      resetPeakRss(server);
      for (let round = 0; round < rounds; round += 1) {
        const rows = format === 'xlsx' ? results.csv[round].rows : undefined;
        results[format].push(await exportOnce(`${base}/orders/export.${format}?${DOWNLOAD_REASON}`, adminToken, rows));
      }
      peaks[format] = peakRssMb(server);
    }
    const peak = Math.max(...Object.values(peaks));
    for (const [format, runs] of Object.entries(results)) {
      const rate = median(runs.map((result) => Math.round(result.rows / result.seconds)));
      lines.push(
        `| ${format}, every order | ${runs[0].rows} | ${rate} | ${median(runs.map((result) => Math.round(result.firstByteMs)))} | ${median(runs.map((result) => Math.round(result.seconds * 10) / 10))} | ${Math.round(runs[0].megabytes)} | ${peaks[format]} |`,
      );
    }

    // The alternative: following `next` links of pages of 100 for a while.
    let walked = 0;
    let next: string | undefined = '/orders?size=100';
    const walkStarted = performance.now();
    while (next && performance.now() - walkStarted < WALK_SECONDS * 1000) {
      const response = await fetch(`${base}${next}`, { headers: { authorization: `Bearer ${adminToken}` } });
      walked += ((await response.json()) as { elements: unknown[] }).elements.length;
      next = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
    }
    const walkRate = Math.round(walked / ((performance.now() - walkStarted) / 1000));
    lines.push(`| pages of 100 by next links, for ${WALK_SECONDS} s | ${walked} | ${walkRate} | – | – | – | – |`);

    // Cancelled half way.
    const cancel = new AbortController();
    const response = await fetch(`${base}/orders/export.csv?${DOWNLOAD_REASON}`, {
      headers: { authorization: `Bearer ${adminToken}` },
      signal: cancel.signal,
    });
    let read = 0;
    try {
      for await (const chunk of response.body ?? []) {
        read += newlinesIn(chunk as Uint8Array);
        if (read >= 500_000) break;
      }
    } finally {
      cancel.abort();
    }
    const cancelledAt = performance.now();
    let lastSeenMs = 0;
    while (performance.now() - cancelledAt < 1000) {
      if ((await runningStatements(context)) > 0) lastSeenMs = Math.round(performance.now() - cancelledAt);
    }
    const afterOneSecond = await runningStatements(context);

    // Stopped reading: the stream is left unread; its buffers fill, and then nothing more should be read.
    // Compared with the same window with no export at all (the monitor's and the background work's own).
    const idleBefore = await selectsSoFar(context);
    await sleep(2000);
    const selectsWhileIdle = (await selectsSoFar(context)) - idleBefore;
    const paused = await fetch(`${base}/orders/export.csv?${DOWNLOAD_REASON}`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    const reader = paused.body?.getReader();
    await reader?.read();
    await sleep(1000);
    const selectsBefore = await selectsSoFar(context);
    await sleep(2000);
    const selectsWhilePaused = (await selectsSoFar(context)) - selectsBefore;
    await reader?.cancel();

    console.log(`\n## Exports of every order, ${results.csv[0].rows} (${rounds} rounds, one client, this build)\n`);
    console.log('| what | rows | rows/s | first byte ms | seconds | MB | peak RSS MB |');
    console.log('|---|---|---|---|---|---|---|');
    for (const line of lines) console.log(line);
    console.log(
      `\nExport against the link walk: ${(median(results.csv.map((result) => result.rows / result.seconds)) / walkRate).toFixed(1)}× the rows per second (CSV).`,
    );
    console.log(`Peak RSS of the service over every export above: ${peak} MB.`);
    console.log(
      `Cancelled after ${read} rows: a statement was last seen running ${lastSeenMs} ms after; ${afterOneSecond} running after 1 s.`,
    );
    console.log(
      `Client stopped reading: ${selectsWhilePaused} SELECTs reached the server in the 2 s after its buffers filled; ${selectsWhileIdle} in 2 s with no export.`,
    );
    console.log(`Peak RSS after all of it: ${peakRssMb(server)} MB.`);
  } finally {
    if (child) await stop(child);
  }
}

/**
 * `--exports --compare-builds=D,D,…`: every order as CSV and as NDJSON from each of those builds in turn, `rounds`
 * times (the order of the builds rotates each round, so that drift spreads over all): rows per second side by side,
 * and each build's against the first's. With `--sorts`, a CSV export in each of those sorts instead, each read for
 * `exportSeconds` (or to its end).
 */
export async function compare(
  context: BenchContext,
  directories: string[],
  perSort?: { sorts: string[]; exportSeconds: number },
): Promise<void> {
  const { rounds, adminToken } = context;
  const variants: Variant[] = directories.map((cwd, index) => ({
    label: basename(cwd),
    port: PORT + 1 + index,
    node: process.execPath,
    cwd,
  }));
  const children: ChildProcess[] = [];
  const queries = perSort ? perSort.sorts.map((sort) => `sort=${sort}`) : [];
  const rates = variants.map(() => ({ csv: [] as number[], ndjson: [] as number[] }));
  const ratesBySort = variants.map(() => new Map<string, number[]>(queries.map((query) => [query, []])));
  try {
    for (const variant of variants) children.push(await startVariant(variant));
    for (let round = 0; round < rounds; round += 1) {
      for (let step = 0; step < variants.length; step += 1) {
        const index = (step + round) % variants.length;
        const baseUrl = `http://127.0.0.1:${variants[index].port}`;
        if (perSort) {
          for (const query of queries) {
            const result = await exportFor(baseUrl, 'csv', query, adminToken, perSort.exportSeconds);
            ratesBySort[index].get(query)!.push(result.rows / result.seconds);
          }
          continue;
        }
        for (const format of ['csv', 'ndjson'] as const) {
          const result = await exportOnce(`${baseUrl}/orders/export.${format}?${DOWNLOAD_REASON}`, adminToken);
          rates[index][format].push(result.rows / result.seconds);
        }
      }
    }
  } finally {
    for (const child of children) await stop(child);
  }
  if (perSort) {
    console.log(`\n## CSV exports by sort, build against build (${rounds} rounds, one client, median rows/s)\n`);
    console.log(
      `| sort | ${variants.map(({ label }) => label).join(' | ')} | ${variants
        .slice(1)
        .map(({ label }) => `${label} against ${variants[0].label}`)
        .join(' | ')} |`,
    );
    console.log(
      `|---|${variants.map(() => '---|').join('')}${variants
        .slice(1)
        .map(() => '---|')
        .join('')}`,
    );
    for (const query of queries) {
      const medians = ratesBySort.map((byQuery) => median(byQuery.get(query)!));
      const ratios = medians.slice(1).map((rate) => `${(rate / medians[0]).toFixed(2)}×`);
      console.log(
        `| ${query.slice('sort='.length)} | ${medians.map(Math.round).join(' | ')} | ${ratios.join(' | ')} |`,
      );
    }
    return;
  }
  console.log(`\n## Exports of every order, build against build (${rounds} rounds, one client, median rows/s)\n`);
  console.log('| build | CSV rows/s | against the first | NDJSON rows/s | against the first |');
  console.log('|---|---|---|---|---|');
  const [first] = rates;
  variants.forEach(({ label }, index) => {
    const cells = (['csv', 'ndjson'] as const).map((format) => {
      const rate = median(rates[index][format]);
      return `${Math.round(rate)} | ${(rate / median(first[format])).toFixed(2)}×`;
    });
    console.log(`| ${label} | ${cells.join(' | ')} |`);
  });
}
