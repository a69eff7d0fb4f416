import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { createConnection, type Connection, type ResultSetHeader, type RowDataPacket } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { signDevelopmentToken } from '../../src/auth/development-token';
import { Role } from '../../src/auth/role';
import { toAuthConfig } from '../../src/config/auth.config';
import { validateEnvironment } from '../../src/config/environment';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { foldAllChanges } from '../../src/orders/counting/daily-counts';
import { generateOrders, randomSource } from '../../src/orders/seeding/order-generator';
import { writeOrders } from '../../src/orders/seeding/order-writer';
import { freePort, startThrowawayMysql, type ThrowawayMysql } from '../../launchers/mysql-server';
import { PRODUCTION_NODE_ARGUMENTS } from '../../launchers/production-command';
import { waitUntilServing } from '../../launchers/wait-for';
import { cpuMs } from '../lib/measure';
import { BENCH_NODE_FLAGS } from '../lib/node-flags';
import { benchJwtSecret } from '../lib/secret';

/**
 * docs/API.md §7: what the listing's schema costs the company's order writers.
 *
 * On a throw-away primary configured for durability (ROW binary log,
 * `sync_binlog=1`, `innodb_flush_log_at_trx_commit=1`), two databases hold the
 * same orders: one with the schema exactly as the migrations leave it, one
 * with the bare tables (primary keys and the seats' foreign key only). Writers
 * act as a ticket sale does: each places an order for one concert (the order
 * row and two seats, one transaction), then pays it (status and `updated_at`,
 * a second transaction), optionally with other work held inside each
 * transaction. The two schemas run interleaved, round after round, so that
 * drift of the machine falls on both alike.
 *
 * A round ends only when the server has caught up with what the round left
 * behind (InnoDB's purge of old row versions and delete-marked index
 * entries, then the pages the round dirtied written out), so that no round
 * starts with another schema's deferred work, and the server's CPU time up
 * to then, per order, is charged to the round's own schema. An instance of
 * the service serves the project's database all along, so that its count
 * fold runs during the project's rounds, as in production.
 */

export interface SchemaUnderTest {
  name: string;
  /** Creates the tables in `database` (empty), ready for the preload. */
  create(server: ThrowawayMysql, database: string): Promise<void>;
}

export interface WriteRound {
  placed: number;
  paid: number;
  failures: Record<string, number>;
  seconds: number;
}

/** A round as the comparison records it: the writes, and the server's CPU time they cost, deferred work included. */
interface MeasuredRound extends WriteRound {
  serverCpuSeconds: number;
}

/**
 * Undo logs not yet purged below which the server counts as caught up: under a second of this workload's
 * transactions, and above what the fold and the idle server leave behind.
 */
const SETTLED_HISTORY = 1_000;
const SETTLE_LIMIT_MS = 120_000;
/** Dirty pages (16 KiB each) below which the server counts as written out: what the fold and the idle server leave. */
const WRITTEN_OUT_DIRTY_PAGES = 1_000;
const WRITE_OUT_LIMIT_MS = 900_000;

/** The sale's concert: one concert that every writer orders for, as during a real on-sale. */
const SALE_CONCERT = 9_000_001;
const SEAT_PRICE = 55_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const BARE_TABLES: SchemaUnderTest = {
  name: 'bare tables',
  async create(server, database) {
    const connection = await createConnection({ host: '127.0.0.1', port: server.port, user: 'root', database });
    try {
      await connection.query(`
        CREATE TABLE orders (
          id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
          user_id BIGINT UNSIGNED NOT NULL,
          concert_id BIGINT UNSIGNED NOT NULL,
          total_price DECIMAL(12,2) NOT NULL,
          status VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
          created_at DATETIME(3) NOT NULL,
          updated_at DATETIME(3) NOT NULL,
          PRIMARY KEY (id)
        ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
      await connection.query(`
        CREATE TABLE order_seats (
          order_id BIGINT UNSIGNED NOT NULL,
          seat_price_id BIGINT UNSIGNED NOT NULL,
          price DECIMAL(12,2) NOT NULL,
          PRIMARY KEY (order_id, seat_price_id),
          CONSTRAINT fk_order_seats_order FOREIGN KEY (order_id) REFERENCES orders (id) ON DELETE CASCADE
        ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    } finally {
      await connection.end();
    }
  },
};

export const PROJECT_SCHEMA: SchemaUnderTest = {
  name: 'project schema',
  async create(server, database) {
    const dataSource = await migrated(server, database);
    await dataSource.destroy();
  },
};

async function open(server: ThrowawayMysql, database: string, poolSize = 4): Promise<DataSource> {
  const dataSource = new DataSource(
    buildDataSourceOptions(
      {
        type: 'mysql',
        host: '127.0.0.1',
        port: server.port,
        username: 'root',
        password: '',
        database,
        poolSize,
        queryTimeoutMs: 60_000,
        replicas: [],
        replicaMaxLagSeconds: 5,
        fullSortMaxOrders: 1_000_000,
      },
      'maintenance',
    ),
  );
  return dataSource.initialize();
}

async function migrated(server: ThrowawayMysql, database: string): Promise<DataSource> {
  const dataSource = await open(server, database);
  await dataSource.runMigrations();
  return dataSource;
}

/** The same generated orders in every database, so that each schema starts from the same table. */
async function preload(server: ThrowawayMysql, database: string, orders: number): Promise<void> {
  // One connection, so that its session settings hold for every batch: the preload is the starting state, not
  // what is measured, so it is neither binary-logged nor flushed at each commit (ten million orders in minutes).
  const dataSource = await open(server, database, 1);
  await dataSource.query('SET SESSION sql_log_bin = 0');
  await dataSource.query('SET GLOBAL innodb_flush_log_at_trx_commit = 2');
  try {
    await writeOrders(
      dataSource,
      generateOrders({ orders, members: 50_000, concerts: 400, days: 730, endMs: Date.now(), seed: 7 }),
    );
    // The change rows the count triggers wrote for the preload are folded now, as the seeder does: left to the
    // service's fold, millions of them would be folded during the rounds and counted against the schema.
    const [{ changes }] = await dataSource.query<Array<{ changes: number }>>(
      "SELECT COUNT(*) AS changes FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'order_count_changes'",
    );
    if (Number(changes) > 0) await foldAllChanges(dataSource);
  } finally {
    await dataSource.query('SET GLOBAL innodb_flush_log_at_trx_commit = 1');
    await dataSource.destroy();
  }
}

/**
 * One writer: place an order (order row + two seats), then pay it, each in
 * its own transaction with `workMs` of other work held inside, until `until`.
 */
async function writer(
  connection: Connection,
  workMs: number,
  until: number,
  tally: WriteRound,
  random: () => number,
): Promise<void> {
  const inTransaction = async (work: () => Promise<number | void>): Promise<number | void> => {
    await connection.query('BEGIN');
    try {
      const result = await work();
      if (workMs > 0) await sleep(workMs);
      await connection.query('COMMIT');
      return result;
    } catch (error) {
      await connection.query('ROLLBACK').catch(() => undefined);
      const code = (error as { code?: string }).code ?? 'other';
      tally.failures[code] = (tally.failures[code] ?? 0) + 1;
      return undefined;
    }
  };
  while (Date.now() < until) {
    const orderId = await inTransaction(async () => {
      const [placed] = await connection.query<ResultSetHeader>(
        `INSERT INTO orders (user_id, concert_id, total_price, status, created_at, updated_at)
         VALUES (?, ?, ?, 'PAYMENT_PENDING', UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))`,
        [1 + Math.floor(random() * 50_000), SALE_CONCERT, 2 * SEAT_PRICE],
      );
      const seat = 1 + Math.floor(random() * 1_000_000);
      await connection.query('INSERT INTO order_seats (order_id, seat_price_id, price) VALUES (?, ?, ?), (?, ?, ?)', [
        placed.insertId,
        seat,
        SEAT_PRICE,
        placed.insertId,
        seat + 1,
        SEAT_PRICE,
      ]);
      return placed.insertId;
    });
    if (orderId === undefined) continue;
    if (Date.now() < until) tally.placed += 1;
    const paid = await inTransaction(async () => {
      await connection.query(
        `UPDATE orders SET status = 'PAYMENT_COMPLETED', updated_at = UTC_TIMESTAMP(3) WHERE id = ?`,
        [orderId],
      );
      return 1;
    });
    if (paid !== undefined && Date.now() < until) tally.paid += 1;
  }
}

/** CPU seconds the server process has used, all its threads. */
const serverCpuSeconds = (server: ThrowawayMysql): number => cpuMs(server.pid() ?? 0) / 1000;

/** One of the server's global status counters. */
async function globalStatus(connection: Connection, name: string): Promise<number> {
  const [[{ Value: value }]] = await connection.query<Array<{ Value: string } & RowDataPacket>>(
    'SHOW GLOBAL STATUS LIKE ?',
    [name],
  );
  return Number(value);
}

/** Polls a global status counter until it is below `below`; `failure` says what did not happen within `limitMs`. */
async function waitUntilBelow(
  connection: Connection,
  name: string,
  below: number,
  { everyMs, limitMs, failure }: { everyMs: number; limitMs: number; failure: string },
): Promise<void> {
  const deadline = Date.now() + limitMs;
  while ((await globalStatus(connection, name)) >= below) {
    if (Date.now() > deadline) throw new Error(`${failure} within ${limitMs} ms`);
    await sleep(everyMs);
  }
}

/**
 * Waits until the server has done what the writes before it left behind, so that the next round starts from the same
 * state: InnoDB's purge of old row versions and delete-marked entries, then every page they dirtied written out.
 * Left to the page cleaner, a round's pages are written during the next round, on the other schema's time.
 */
async function settle(server: ThrowawayMysql): Promise<number> {
  const connection = await createConnection({ host: '127.0.0.1', port: server.port, user: 'root' });
  try {
    await waitUntilBelow(connection, 'Innodb_history_list_length', SETTLED_HISTORY, {
      everyMs: 100,
      limitMs: SETTLE_LIMIT_MS,
      failure: 'purge did not catch up',
    });
    return await writeOut(connection, { everyMs: 100, limitMs: SETTLE_LIMIT_MS });
  } finally {
    await connection.end();
  }
}

/**
 * Has the page cleaner write every dirty page now, at full pace, rather than at its idle one, and waits until it has;
 * returns how many pages were dirty.
 */
async function writeOut(
  connection: Connection,
  { everyMs, limitMs }: { everyMs: number; limitMs: number },
): Promise<number> {
  const [[{ limit }]] = await connection.query<Array<{ limit: number } & RowDataPacket>>(
    'SELECT @@GLOBAL.innodb_max_dirty_pages_pct AS `limit`',
  );
  const dirty = await globalStatus(connection, 'Innodb_buffer_pool_pages_dirty');
  await connection.query('SET GLOBAL innodb_max_dirty_pages_pct = 0');
  try {
    await waitUntilBelow(connection, 'Innodb_buffer_pool_pages_dirty', WRITTEN_OUT_DIRTY_PAGES, {
      everyMs,
      limitMs,
      failure: 'the dirty pages were not written',
    });
  } finally {
    await connection.query('SET GLOBAL innodb_max_dirty_pages_pct = ?', [limit]);
  }
  return dirty;
}

/**
 * Writes every page the preload left dirty before the first round, so that no round shares the disk with the
 * page cleaner's catching up on gigabytes of loaded pages, whichever schema was loaded last.
 */
async function writeOutPreload(server: ThrowawayMysql): Promise<void> {
  const connection = await createConnection({ host: '127.0.0.1', port: server.port, user: 'root' });
  try {
    const started = Date.now();
    const dirty = await writeOut(connection, { everyMs: 500, limitMs: WRITE_OUT_LIMIT_MS });
    console.error(`preload written out: ${format(dirty)} dirty pages in ${Date.now() - started} ms`);
  } finally {
    await connection.end();
  }
}

export async function runWriters(
  server: ThrowawayMysql,
  database: string,
  connections: number,
  workMs: number,
  seconds: number,
): Promise<WriteRound> {
  const opened: Connection[] = [];
  // In groups: hundreds of handshakes at once on two busy cores can outlast a connect timeout.
  while (opened.length < connections) {
    const group = Math.min(32, connections - opened.length);
    opened.push(
      ...(await Promise.all(
        Array.from({ length: group }, () =>
          createConnection({ host: '127.0.0.1', port: server.port, user: 'root', database, connectTimeout: 60_000 }),
        ),
      )),
    );
  }
  const tally: WriteRound = { placed: 0, paid: 0, failures: {}, seconds };
  try {
    const until = Date.now() + seconds * 1000;
    await Promise.all(
      opened.map((connection, index) => writer(connection, workMs, until, tally, randomSource(index + 1))),
    );
  } finally {
    await Promise.all(opened.map((connection) => connection.end()));
  }
  return tally;
}

interface ListingLoad {
  stop(): Promise<{ requests: number; failed: number; p50: number; p99: number }>;
}

/** Admin listings (page 1, unfiltered and by status) against the service on the project's database. */
function startListings(baseUrl: string, token: string, clients: number): ListingLoad {
  let running = true;
  const latencies: number[] = [];
  let failed = 0;
  const queries = ['', 'orderStatus=PAYMENT_COMPLETED', 'consertId=7'];
  const loops = Array.from({ length: clients }, async (_, client) => {
    for (let index = client; running; index += 1) {
      const started = performance.now();
      const response = await fetch(`${baseUrl}/orders?${queries[index % queries.length]}`, {
        headers: { authorization: `Bearer ${token}` },
      }).catch(() => undefined);
      await response?.arrayBuffer();
      if (response?.ok) latencies.push(performance.now() - started);
      else failed += 1;
    }
  });
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      const sorted = latencies.sort((a, b) => a - b);
      const at = (quantile: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * quantile))] ?? 0;
      return { requests: sorted.length, failed, p50: at(0.5), p99: at(0.99) };
    },
  };
}

async function startService(server: ThrowawayMysql, database: string): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [...BENCH_NODE_FLAGS, ...PRODUCTION_NODE_ARGUMENTS], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      PORT: String(port),
      METRICS_PORT: '0',
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'warn',
      DB_TYPE: 'mysql',
      DB_HOST: '127.0.0.1',
      DB_PORT: String(server.port),
      DB_USERNAME: 'root',
      DB_PASSWORD: '',
      DB_DATABASE: database,
      JWT_SECRET: benchJwtSecret(),
    },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  await waitUntilServing(child, url, { path: '/health/ready' });
  return { child, url };
}

const format = (value: number) => Math.round(value).toLocaleString('en-US');
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export interface WriteComparisonOptions {
  connections: number[];
  workMs: number[];
  rounds: number;
  seconds: number;
  preloadOrders: number;
  /** The primary's redo log, in MiB; the server's default without it. */
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
  const server = await startThrowawayMysql(
    { role: 'primary', serverId: 1 },
    {
      durable: true,
      // Room for every schema's tables and indexes, as each would have on a primary of its own: 1 GiB up to a
      // million orders preloaded, 8 GiB beyond (at 10M the project's schema takes 2.9 GB and the bare tables 1.8 GB,
      // which 4 GiB did not hold together).
      bufferPoolMb: options.preloadOrders > 1_000_000 ? 8192 : 1024,
      redoLogMb: options.redoLogMb,
      maxConnections: Math.max(...options.connections) + 50,
    },
  );
  let service: { child: ChildProcess; url: string } | undefined;
  try {
    const databases = schemas.map((_, index) => `writes_${index}`);
    const admin = await createConnection({ host: '127.0.0.1', port: server.port, user: 'root' });
    for (const [index, schema] of schemas.entries()) {
      await admin.query(`CREATE DATABASE ${databases[index]} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
      await schema.create(server, databases[index]);
      const started = Date.now();
      await preload(server, databases[index], options.preloadOrders);
      console.error(`${schema.name}: ${format(options.preloadOrders)} orders loaded in ${Date.now() - started} ms`);
    }
    await admin.end();
    await writeOutPreload(server);

    const listingDatabase = databases[schemas.findIndex((schema) => schema === PROJECT_SCHEMA)];
    const token = signDevelopmentToken(
      toAuthConfig(validateEnvironment({ NODE_ENV: 'test', JWT_SECRET: benchJwtSecret() })),
      { sub: 1, role: Role.Admin },
      '4h',
    );
    // The fold is part of what the project's schema costs the primary: an instance runs it throughout.
    if (listingDatabase !== undefined) service = await startService(server, listingDatabase);
    else if (options.listings) throw new Error('listings need the project schema among the schemas');
    await settle(server);

    const probe = await createConnection({ host: '127.0.0.1', port: server.port, user: 'root' });
    const [[{ version, redoLogBytes }]] = await probe.query<
      Array<{ version: string; redoLogBytes: number } & RowDataPacket>
    >('SELECT @@version AS version, @@innodb_log_file_size AS redoLogBytes');
    await probe.end();
    console.log(
      `Write path on MariaDB ${version} (ROW binary log, sync_binlog=1, innodb_flush_log_at_trx_commit=1, ` +
        `a ${format(Number(redoLogBytes) / 2 ** 20)} MiB redo log), ` +
        `${format(options.preloadOrders)} orders preloaded, ${options.rounds} interleaved rounds of ${options.seconds} s after one uncounted of each, ` +
        `node ${process.version}${options.listings ? ', with admin listings running alongside (4 clients)' : ''}.\n` +
        'Medians of the rounds; ratios to the first schema: of the medians (placed / paid), then the lowest and highest ' +
        'of the rounds paired in turn (placed); server CPU per order placed and paid, purge included' +
        `${options.listings ? " (and the listings' statements, which ran during both schemas' rounds)" : ''}.\n`,
    );
    const header = schemas.flatMap((schema, index) =>
      index === 0
        ? [`${schema.name} placed/s`, 'paid/s', 'server CPU µs/order']
        : [`${schema.name} placed/s`, 'paid/s', 'ratio', 'rounds', 'server CPU µs/order'],
    );
    console.log(
      `| connections | work in txn | ${header.join(' | ')} | failed txns |${options.listings ? ' listings p50 / p99 ms |' : ''}`,
    );
    console.log(`|${'---|'.repeat(header.length + 3 + (options.listings ? 1 : 0))}`);

    for (const connections of options.connections) {
      for (const workMs of options.workMs) {
        const results = schemas.map(() => [] as MeasuredRound[]);
        const listingFigures: Array<{ p50: number; p99: number; failed: number }> = [];
        // One round of each schema first, not counted: the first round of a setting has run well below the rounds
        // after it (a trial's first round placed 39 % of what the same schema's second did), and counted, it would
        // fall on whichever schema goes first.
        for (const index of schemas.keys()) {
          await runWriters(server, databases[index], connections, workMs, options.seconds);
          await settle(server);
        }
        for (let round = 0; round < options.rounds; round += 1) {
          const order = round % 2 === 0 ? schemas.map((_, index) => index) : schemas.map((_, index) => index).reverse();
          for (const index of order) {
            const cpuBefore = serverCpuSeconds(server);
            const listing = service && options.listings ? startListings(service.url, token, 4) : undefined;
            const writes = await runWriters(server, databases[index], connections, workMs, options.seconds);
            const figures = await listing?.stop();
            if (figures && databases[index] === listingDatabase) listingFigures.push(figures);
            const dirty = await settle(server);
            console.error(
              `${schemas[index].name}, ${connections} connections, ${workMs} ms, round ${round + 1}: ` +
                `${format(writes.placed)} placed, ${format(dirty)} pages dirty after`,
            );
            results[index].push({ ...writes, serverCpuSeconds: serverCpuSeconds(server) - cpuBefore });
          }
        }
        const placed = results.map((rounds) => median(rounds.map((round) => round.placed / round.seconds)));
        const paid = results.map((rounds) => median(rounds.map((round) => round.paid / round.seconds)));
        const cpuPerOrder = results.map((rounds) =>
          median(rounds.map((round) => (round.serverCpuSeconds * 1e6) / Math.max(1, round.placed))),
        );
        const pairedRange = (index: number) => {
          const ratios = results[index].map((round, at) => round.placed / Math.max(1, results[0][at].placed));
          return `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`;
        };
        const failures = results.map((rounds) => {
          const counts: Record<string, number> = {};
          for (const round of rounds)
            for (const [code, count] of Object.entries(round.failures)) counts[code] = (counts[code] ?? 0) + count;
          return Object.entries(counts)
            .map(([code, count]) => `${code} ${count}`)
            .join(', ');
        });
        const cells = schemas.flatMap((_, index) =>
          index === 0
            ? [format(placed[0]), format(paid[0]), format(cpuPerOrder[0])]
            : [
                format(placed[index]),
                format(paid[index]),
                `**${(placed[index] / placed[0]).toFixed(2)}×** / ${(paid[index] / paid[0]).toFixed(2)}×`,
                pairedRange(index),
                `${format(cpuPerOrder[index])} (${(cpuPerOrder[index] / cpuPerOrder[0]).toFixed(2)}×)`,
              ],
        );
        const failed = failures.every((text) => text === '')
          ? '0'
          : schemas.map((schema, index) => `${schema.name}: ${failures[index] || '0'}`).join('; ');
        const listingCell = options.listings
          ? ` ${median(listingFigures.map((figure) => figure.p50)).toFixed(1)} / ${median(listingFigures.map((figure) => figure.p99)).toFixed(1)}${listingFigures.some((figure) => figure.failed > 0) ? ` (${listingFigures.reduce((sum, figure) => sum + figure.failed, 0)} failed)` : ''} |`
          : '';
        console.log(`| ${connections} | ${workMs} ms | ${cells.join(' | ')} | ${failed} |${listingCell}`);
      }
    }
  } finally {
    if (service && service.child.exitCode === null) {
      const exited = new Promise((resolve) => service?.child.once('exit', resolve));
      service.child.kill('SIGTERM');
      await exited;
    }
    await server.stop();
  }
}
