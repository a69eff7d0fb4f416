import { spawn, type ChildProcess } from 'node:child_process';
import { createConnection } from 'mysql2/promise';
import { freePort, startThrowawayMysql, type ThrowawayMysql } from '../../launchers/mysql-server';
import { PRODUCTION_NODE_ARGUMENTS } from '../../launchers/production-command';
import { killOnExit } from '../../launchers/reap-on-exit';
import { waitUntilServing } from '../../launchers/wait-for';
import { cpuMs, thousands } from './measure';
import { BENCH_NODE_FLAGS } from './node-flags';
import { benchJwtSecret } from './secret';
import { globalStatus, preload, writeOutPreload, type SchemaUnderTest } from './write-schemas';

// The write bench's throw-away primaries, one per schema: started, loaded, frozen and thawed in turn, stopped.

/** One schema's primary, and the service instance that folds its counts (`foldsCounts`). */
export interface SchemaPrimary {
  schema: SchemaUnderTest;
  server: ThrowawayMysql;
  service?: { child: ChildProcess; url: string };
}

export const WRITES_DATABASE = 'writes';

/** What a primary needs to be started with: its preload, and room for the most writers of a round. */
export interface PrimaryOptions {
  preloadOrders: number;
  /** Its redo log, in MiB; the server's default without it. */
  redoLogMb?: number;
  maxWriters: number;
}

/** CPU seconds the server process has used, all its threads. */
export const serverCpuSeconds = (server: ThrowawayMysql): number => cpuMs(server.pid() ?? 0) / 1000;

/** CPU seconds the primary's service instance has used; 0 where none runs. */
export const serviceCpuSeconds = ({ service }: SchemaPrimary): number =>
  service?.child.pid === undefined ? 0 : cpuMs(service.child.pid) / 1000;

/** Freezes a primary and its service, so that neither works during the other schema's round. */
export async function freeze({ server, service }: SchemaPrimary): Promise<void> {
  service?.child.kill('SIGSTOP');
  await server.pause();
}

export function thaw({ server, service }: SchemaPrimary): void {
  server.signal('SIGCONT');
  service?.child.kill('SIGCONT');
}

/** What a primary has not done yet of the writes before: pages not written out, undo logs not purged. */
export async function backlog(server: ThrowawayMysql): Promise<{ dirty: number; history: number }> {
  const connection = await createConnection({ host: '127.0.0.1', port: server.port, user: 'root' });
  try {
    return {
      dirty: await globalStatus(connection, 'Innodb_buffer_pool_pages_dirty'),
      history: await globalStatus(connection, 'Innodb_history_list_length'),
    };
  } finally {
    await connection.end();
  }
}

export async function startPrimary(
  schema: SchemaUnderTest,
  options: PrimaryOptions,
  serverId: number,
): Promise<SchemaPrimary> {
  const server = await startThrowawayMysql(
    { role: 'primary', serverId },
    {
      durable: true,
      // Room for the schema's tables and indexes: at 10M the project's schema takes 2.9 GB, the bare tables 1.8 GB.
      bufferPoolMb: options.preloadOrders > 1_000_000 ? 4096 : 1024,
      redoLogMb: options.redoLogMb,
      maxConnections: options.maxWriters + 50,
    },
  );
  try {
    const admin = await createConnection({ host: '127.0.0.1', port: server.port, user: 'root' });
    await admin.query(`CREATE DATABASE ${WRITES_DATABASE} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await admin.end();
    await schema.create(server, WRITES_DATABASE);
    const started = Date.now();
    await preload(server, WRITES_DATABASE, options.preloadOrders);
    console.error(`${schema.name}: ${thousands(options.preloadOrders)} orders loaded in ${Date.now() - started} ms`);
    await writeOutPreload(server, schema);
    return { schema, server };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

interface ListingLoad {
  stop(): Promise<{ requests: number; failed: number; p50: number; p99: number }>;
}

/** Admin listings (page 1, unfiltered and by status) against the service on the project's database. */
export function startListings(baseUrl: string, token: string, clients: number): ListingLoad {
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

export async function startService(
  server: ThrowawayMysql,
  database: string,
): Promise<{ child: ChildProcess; url: string }> {
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
  killOnExit(child);
  const url = `http://127.0.0.1:${port}`;
  await waitUntilServing(child, url, { path: '/health/ready' });
  return { child, url };
}

/** Stops a primary and the service folding its counts, thawed first so that both can hear the signal. */
export async function stopPrimary(primary: SchemaPrimary): Promise<void> {
  thaw(primary);
  const { server, service } = primary;
  if (service && service.child.exitCode === null) {
    const exited = new Promise((resolve) => service.child.once('exit', resolve));
    service.child.kill('SIGTERM');
    await exited;
  }
  await server.stop();
}
