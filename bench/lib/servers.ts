import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { PRODUCTION_NODE_ARGUMENTS } from '../../launchers/production-command';
import { killOnExit } from '../../launchers/reap-on-exit';
import { BENCH_NODE_FLAGS } from './node-flags';
import { waitUntilServing } from '../../launchers/wait-for';
import type { BenchContext } from './context';

/** The service as production starts it, the raw floor (bench/floor.ts) and the naive TypeORM findAndCount (bench/naive.ts). */
export type ServerName = 'service' | 'floor' | 'naive';
const COMMANDS: Record<ServerName, string[]> = {
  service: [...BENCH_NODE_FLAGS, ...PRODUCTION_NODE_ARGUMENTS],
  floor: ['-r', 'ts-node/register', 'bench/floor.ts'],
  naive: ['-r', 'ts-node/register', 'bench/naive.ts'],
};
const PORTS: Record<ServerName, number> = { service: 3910, floor: 3911, naive: 3912 };

/** A mode that fails half-way must leave none of the servers it started running. */
const started = (child: ChildProcess): ChildProcess => {
  killOnExit(child);
  return child;
};
/** Starts one of them on its port and waits until it answers a listing. */
export async function start(
  { adminToken }: BenchContext,
  name: ServerName,
  extra: Record<string, string> = {},
  nodeArguments: string[] = [],
): Promise<ChildProcess> {
  const child = started(
    spawn(process.execPath, [...nodeArguments, ...COMMANDS[name]], {
      // `test` logs JSON lines as production does (development would pretty-print them); production itself would
      // want settings (PAGE_LINK_SECRET, a public key's issuer) that a measurement does not need.
      env: { ...process.env, PORT: String(PORTS[name]), RATE_LIMIT_PER_MINUTE: '0', NODE_ENV: 'test', ...extra },
      stdio: 'ignore',
    }),
  );
  // The floor and the naive server answer listings only; a page of one says they serve.
  await waitUntilServing(child, `http://127.0.0.1:${PORTS[name]}`, {
    path: '/orders?size=1',
    headers: { authorization: `Bearer ${adminToken}` },
  });
  return child;
}

export async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

export const url = (name: ServerName, query: string) =>
  `http://127.0.0.1:${PORTS[name]}/orders${query ? `?${query}` : ''}`;

/** One way of starting the same build of the service, for a side-by-side comparison. */
export interface Variant {
  label: string;
  port: number;
  node: string;
  env?: Record<string, string>;
  /** Node.js flags added before the production command's own. */
  flags?: string[];
  /** The checkout whose `dist/` runs; this one by default. */
  cwd?: string;
  /** A file the service's log is appended to, to explain afterwards what a measurement cannot tell; none by default. */
  logFile?: string;
}

export async function startVariant(variant: Variant): Promise<ChildProcess> {
  const log = variant.logFile === undefined ? undefined : openSync(variant.logFile, 'a');
  const child = started(
    spawn(variant.node, [...BENCH_NODE_FLAGS, ...(variant.flags ?? []), ...PRODUCTION_NODE_ARGUMENTS], {
      cwd: variant.cwd,
      env: {
        ...process.env,
        PORT: String(variant.port),
        RATE_LIMIT_PER_MINUTE: '0',
        NODE_ENV: 'test',
        METRICS_PORT: '0',
        ...variant.env,
      },
      stdio: log === undefined ? 'ignore' : ['ignore', log, log],
    }),
  );
  // The child holds its own copy of the descriptor.
  if (log !== undefined) closeSync(log);
  await waitUntilServing(child, `http://127.0.0.1:${variant.port}`, { path: '/health/ready' });
  return child;
}

/** What an administrator's export states of why it is downloaded (docs/API.md §13), as a query parameter. */
export const DOWNLOAD_REASON = `reason=${encodeURIComponent('Measuring exports in the benchmark')}`;
