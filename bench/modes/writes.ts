import 'reflect-metadata';
import { availableParallelism } from 'node:os';
import { createConnection, type RowDataPacket } from 'mysql2/promise';
import { signDevelopmentToken } from '../../src/auth/development-token';
import { Role } from '../../src/auth/role';
import { toAuthConfig } from '../../src/config/auth.config';
import { validateEnvironment } from '../../src/config/environment';
import { writeChart } from '../lib/charts';
import { median, thousands as format } from '../lib/measure';
import { runSale, type SaleTally } from '../lib/sale-orders';
import { benchJwtSecret } from '../lib/secret';
import {
  backlog,
  freeze,
  serverCpuSeconds,
  serviceCpuSeconds,
  startListings,
  startPrimary,
  startService,
  stopPrimary,
  thaw,
  WRITES_DATABASE,
  type SchemaPrimary,
} from '../lib/write-primaries';
import type { SchemaUnderTest } from '../lib/write-schemas';

export { BARE_TABLES, PROJECT_SCHEMA, PROMOTED_REPLICA } from '../lib/write-schemas';

/**
 * docs/API.md §7: what the listing's schema costs the company's order writers.
 *
 * Two throw-away primaries configured for durability (ROW binary log,
 * `sync_binlog=1`, `innodb_flush_log_at_trx_commit=1`) hold the same orders:
 * one with the schema exactly as the migrations leave it, one with the bare
 * tables (primary keys and the seats' foreign key only). Writers act as a
 * ticket sale does: each places an order for one concert (the order row and
 * two seats, one transaction), then pays it (status and `updated_at`, a
 * second transaction), optionally with other work held inside each
 * transaction. The two schemas run interleaved, round after round, so that
 * drift of the machine falls on both alike.
 *
 * Each primary is frozen (SIGSTOP) while the other one's round runs. So what
 * a round leaves behind, InnoDB's purge of old row versions and the pages it
 * dirtied, is done in the same schema's next rounds, on its own time, and at
 * the pace a primary taking a sale does it: a page gathers orders until the
 * redo log asks for it to be written out. The server's CPU time during its
 * rounds, per order, is charged to the round's schema. An instance of the
 * service serves the project's primary, frozen with it, so that its count
 * fold runs during the project's rounds, as in production.
 */

interface WriteRound extends SaleTally {
  seconds: number;
}

/**
 * A round as the comparison records it: the writes, and the CPU time each process on the machine spent on them: the
 * server (deferred work included), the writers' client, and the service instance folding the counts (none for a
 * schema that counts nothing). In production the two last run on machines of their own; here they share the
 * server's cores, so what they take is taken from the server.
 */
interface MeasuredRound extends WriteRound {
  serverCpuSeconds: number;
  writersCpuSeconds: number;
  serviceCpuSeconds: number;
  /** The round's length on the wall clock, connecting the writers included, over which the CPU times were taken. */
  wallSeconds: number;
}

/** The median over rounds of one process's CPU time per order placed, in µs. */
const medianPerOrder = (rounds: MeasuredRound[], cpuSeconds: (round: MeasuredRound) => number) =>
  median(rounds.map((round) => (cpuSeconds(round) * 1e6) / Math.max(1, round.placed)));

export interface WriteComparisonOptions {
  connections: number[];
  workMs: number[];
  rounds: number;
  seconds: number;
  preloadOrders: number;
  /** Each primary's redo log, in MiB; the server's default without it. */
  redoLogMb?: number;
  listings: boolean;
}

/**
 * Runs every schema at every connection count and in-transaction work,
 * interleaved (the order of the schemas alternates from round to round), and
 * prints one markdown row per setting: orders placed and paid per second
 * (median of the rounds), failed transactions, and each schema's ratio to the
 * first one listed.
 */
export async function compareWrites(schemas: SchemaUnderTest[], options: WriteComparisonOptions): Promise<void> {
  const settled = await Promise.allSettled(
    schemas.map((schema, index) =>
      startPrimary(schema, { ...options, maxWriters: Math.max(...options.connections) }, index + 1),
    ),
  );
  const primaries = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  try {
    const failed = settled.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    await measure(primaries, options);
  } finally {
    for (const primary of primaries) await stopPrimary(primary);
  }
}

async function measure(primaries: SchemaPrimary[], options: WriteComparisonOptions): Promise<void> {
  if (options.listings && !primaries.some(({ schema }) => schema.foldsCounts))
    throw new Error('listings need the project schema among the schemas');
  const token = signDevelopmentToken(
    toAuthConfig(validateEnvironment({ NODE_ENV: 'test', JWT_SECRET: benchJwtSecret() })),
    { sub: 1, role: Role.Admin },
    '4h',
  );
  // The fold is part of what the project's schema costs the primary: an instance runs it throughout.
  for (const primary of primaries)
    if (primary.schema.foldsCounts) primary.service = await startService(primary.server, WRITES_DATABASE);

  const probe = await createConnection({ host: '127.0.0.1', port: primaries[0].server.port, user: 'root' });
  const [[{ version, redoLogBytes, bufferPoolBytes }]] = await probe.query<
    Array<{ version: string; redoLogBytes: number; bufferPoolBytes: number } & RowDataPacket>
  >(
    'SELECT @@version AS version, @@innodb_log_file_size AS redoLogBytes, @@innodb_buffer_pool_size AS bufferPoolBytes',
  );
  await probe.end();
  console.log(
    `Write path on MariaDB ${version}, a primary per schema (ROW binary log, sync_binlog=1, ` +
      `innodb_flush_log_at_trx_commit=1, a ${format(Number(bufferPoolBytes) / 2 ** 20)} MiB buffer pool, ` +
      `a ${format(Number(redoLogBytes) / 2 ** 20)} MiB redo log), ` +
      `${format(options.preloadOrders)} orders preloaded and written out, ${options.rounds} interleaved rounds of ` +
      `${options.seconds} s after one uncounted of each, each primary frozen during the other's rounds, ` +
      `node ${process.version}${options.listings ? ", with admin listings running alongside the project's rounds (4 clients)" : ''}.\n` +
      'Medians of the rounds; ratios to the first schema: of the medians (placed / paid), then the lowest, highest and ' +
      'median of the rounds paired in turn (placed); server CPU per order placed and paid during its rounds, the purge and ' +
      'page writes of earlier rounds included' +
      `${options.listings ? " (and the listings' statements)" : ''}.\n`,
  );
  const header = primaries.flatMap(({ schema }, index) =>
    index === 0
      ? [`${schema.name} placed/s`, 'paid/s', 'server CPU µs/order']
      : [`${schema.name} placed/s`, 'paid/s', 'ratio', 'rounds', 'server CPU µs/order'],
  );
  console.log(
    `| connections | work in txn | ${header.join(' | ')} | failed txns |${options.listings ? ' listings p50 / p99 ms |' : ''}`,
  );
  console.log(`|${'---|'.repeat(header.length + 3 + (options.listings ? 1 : 0))}`);

  for (const primary of primaries) await freeze(primary);
  const coresBySetting: string[] = [];
  const ratios: Array<{ setting: string; ratio: number }> = [];
  const round = async (primary: SchemaPrimary, connections: number, workMs: number) => {
    thaw(primary);
    try {
      const cpuBefore = serverCpuSeconds(primary.server);
      const writersBefore = process.cpuUsage();
      const serviceBefore = serviceCpuSeconds(primary);
      const started = performance.now();
      const listing = primary.service && options.listings ? startListings(primary.service.url, token, 4) : undefined;
      const writes = await runSale(primary.server.port, WRITES_DATABASE, {
        connections,
        workMs,
        seconds: options.seconds,
      });
      const listingFigures = await listing?.stop();
      const writersCpu = process.cpuUsage(writersBefore);
      const measured: MeasuredRound = {
        ...writes,
        serverCpuSeconds: serverCpuSeconds(primary.server) - cpuBefore,
        writersCpuSeconds: (writersCpu.user + writersCpu.system) / 1e6,
        serviceCpuSeconds: serviceCpuSeconds(primary) - serviceBefore,
        wallSeconds: (performance.now() - started) / 1000,
      };
      return { measured, listingFigures, left: await backlog(primary.server) };
    } finally {
      await freeze(primary);
    }
  };

  for (const connections of options.connections) {
    for (const workMs of options.workMs) {
      const results = primaries.map(() => [] as MeasuredRound[]);
      const listingFigures: Array<{ p50: number; p99: number; failed: number }> = [];
      // One round of each schema first, not counted: the first round of a setting has run well below the rounds
      // after it (a trial's first round placed 39 % of what the same schema's second did).
      for (const primary of primaries) await round(primary, connections, workMs);
      for (let turn = 0; turn < options.rounds; turn += 1) {
        const order =
          turn % 2 === 0 ? primaries.map((_, index) => index) : primaries.map((_, index) => index).reverse();
        for (const index of order) {
          const { measured, listingFigures: figures, left } = await round(primaries[index], connections, workMs);
          if (figures) listingFigures.push(figures);
          console.error(
            `${primaries[index].schema.name}, ${connections} connections, ${workMs} ms, round ${turn + 1}: ` +
              `${format(measured.placed)} placed, ${measured.serverCpuSeconds.toFixed(1)} s of server CPU, ` +
              `${format(left.dirty)} pages dirty and ${format(left.history)} undo logs unpurged after`,
          );
          results[index].push(measured);
        }
      }
      console.log(row(primaries, results, listingFigures, { connections, workMs, listings: options.listings }));
      const placed = placedPerSecond(results);
      ratios.push({ setting: `${connections} conn, ${workMs} ms work`, ratio: placed[1] / placed[0] });
      coresBySetting.push(whereTheCoresWent(primaries, results, { connections, workMs }));
    }
  }
  const left = await Promise.all(
    primaries.map(async (primary) => {
      thaw(primary);
      return { name: primary.schema.name, ...(await backlog(primary.server)) };
    }),
  );
  console.log(
    `\nLeft at the end, not charged to any round: ${left
      .map(({ name, dirty, history }) => `${name} ${format(dirty)} dirty pages, ${format(history)} undo logs`)
      .join('; ')}.`,
  );
  console.log(
    `\nWhere the cores went, medians of the rounds:\n${coresBySetting.map((line) => `- ${line}`).join('\n')}`,
  );
  writeChart('writes-against-bare-tables', {
    title: `The sale's orders placed per second with ${primaries[1].schema.name}, against the bare tables (${format(options.preloadOrders)} orders held)`,
    width: 420,
    layer: [
      {
        data: { values: ratios.map(({ setting, ratio }) => ({ setting, ratio: Number(ratio.toFixed(2)) })) },
        mark: 'bar',
        encoding: {
          y: { field: 'setting', type: 'nominal', title: null, sort: null, axis: { labelLimit: 300 } },
          x: { field: 'ratio', type: 'quantitative', title: 'orders placed per second ÷ the bare tables’' },
        },
      },
      {
        // docs/API.md §7: at or above 0.85× of the bare tables.
        data: { values: [{ floor: 0.85 }] },
        mark: { type: 'rule', strokeDash: [4, 4], color: 'firebrick' },
        encoding: { x: { field: 'floor', type: 'quantitative' } },
      },
    ],
  });
}

/**
 * Each process's CPU per order placed, and how busy the machine's cores were, medians of a setting's rounds: what
 * the server's share of the cores was, next to the client and the service that production runs elsewhere.
 */
function whereTheCoresWent(
  primaries: SchemaPrimary[],
  results: MeasuredRound[][],
  { connections, workMs }: { connections: number; workMs: number },
): string {
  const perOrder = (rounds: MeasuredRound[], cpuSeconds: (round: MeasuredRound) => number) =>
    format(medianPerOrder(rounds, cpuSeconds));
  const busy = (rounds: MeasuredRound[]) =>
    median(
      rounds.map(
        (round) =>
          (round.serverCpuSeconds + round.writersCpuSeconds + round.serviceCpuSeconds) /
          (round.wallSeconds * availableParallelism()),
      ),
    );
  const parts = primaries.map(
    ({ schema }, index) =>
      `${schema.name}: server ${perOrder(results[index], (round) => round.serverCpuSeconds)}, ` +
      `writers ${perOrder(results[index], (round) => round.writersCpuSeconds)}, ` +
      `service ${perOrder(results[index], (round) => round.serviceCpuSeconds)} µs/order, ` +
      `cores ${Math.round(busy(results[index]) * 100)} % busy`,
  );
  return `${connections} connections, ${workMs} ms: ${parts.join('; ')}`;
}

/** Each schema's orders placed per second, the median of its rounds. */
const placedPerSecond = (results: MeasuredRound[][]): number[] =>
  results.map((rounds) => median(rounds.map((round) => round.placed / round.seconds)));

/** One markdown row of the table: each schema's medians, and the ratios to the first. */
function row(
  primaries: SchemaPrimary[],
  results: MeasuredRound[][],
  listingFigures: Array<{ p50: number; p99: number; failed: number }>,
  { connections, workMs, listings }: { connections: number; workMs: number; listings: boolean },
): string {
  const placed = placedPerSecond(results);
  const paid = results.map((rounds) => median(rounds.map((round) => round.paid / round.seconds)));
  const cpuPerOrder = results.map((rounds) => medianPerOrder(rounds, (round) => round.serverCpuSeconds));
  // Each round against the first schema's round of the same turn: drift of the machine over the run falls on both.
  const pairedRounds = (index: number) => {
    const ratios = results[index].map((round, at) => round.placed / Math.max(1, results[0][at].placed));
    return `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)} (median ${median(ratios).toFixed(2)})`;
  };
  const failures = results.map((rounds) => {
    const counts: Record<string, number> = {};
    for (const round of rounds)
      for (const [code, count] of Object.entries(round.failures)) counts[code] = (counts[code] ?? 0) + count;
    return Object.entries(counts)
      .map(([code, count]) => `${code} ${count}`)
      .join(', ');
  });
  const cells = primaries.flatMap((_, index) =>
    index === 0
      ? [format(placed[0]), format(paid[0]), format(cpuPerOrder[0])]
      : [
          format(placed[index]),
          format(paid[index]),
          `**${(placed[index] / placed[0]).toFixed(2)}×** / ${(paid[index] / paid[0]).toFixed(2)}×`,
          pairedRounds(index),
          `${format(cpuPerOrder[index])} (${(cpuPerOrder[index] / cpuPerOrder[0]).toFixed(2)}×)`,
        ],
  );
  const failed = failures.every((text) => text === '')
    ? '0'
    : primaries.map(({ schema }, index) => `${schema.name}: ${failures[index] || '0'}`).join('; ');
  const listingCell = listings
    ? ` ${median(listingFigures.map((figure) => figure.p50)).toFixed(1)} / ${median(listingFigures.map((figure) => figure.p99)).toFixed(1)}${listingFigures.some((figure) => figure.failed > 0) ? ` (${listingFigures.reduce((sum, figure) => sum + figure.failed, 0)} failed)` : ''} |`
    : '';
  return `| ${connections} | ${workMs} ms | ${cells.join(' | ')} | ${failed} |${listingCell}`;
}
