import autocannon from 'autocannon';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchContext } from '../lib/context';
import { cpuTimes, drain } from '../lib/measure';
import { start, stop, url, type ServerName } from '../lib/servers';
import { timePerLayer, type CpuProfile } from '../lib/profile-layers';

const PROFILE_WARM_UP_REQUESTS = 1_000;
const PROFILED_REQUESTS = 8_000;
/** Microseconds on the monotonic clock, the one V8's profiles are stamped with. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/**
 * Where a user-page-1 request's time goes in the service and in the floor:
 * each runs under `--cpu-prof`, answers warm-up requests, then
 * PROFILED_REQUESTS at 10 connections; the self time of the samples taken
 * while those are served, by layer (bench/lib/profile-layers.ts), next to each
 * process's user and system CPU time over the same requests from /proc.
 */
export async function run(context: BenchContext): Promise<void> {
  const { connections, userToken } = context;
  const directory = mkdtempSync(join(tmpdir(), 'orders-bench-profile-'));
  const measured = new Map<ServerName, { layers: Map<string, number>; userMs: number; systemMs: number }>();
  const serve = (name: ServerName, amount: number) =>
    autocannon({ url: url(name, ''), connections, amount, headers: { authorization: `Bearer ${userToken}` } });
  try {
    for (const name of ['service', 'floor'] as const) {
      process.stderr.write(`profiling ${name}\n`);
      const child = await start(context, name, {}, ['--cpu-prof', `--cpu-prof-dir=${join(directory, name)}`]);
      const pid = child.pid ?? 0;
      await serve(name, PROFILE_WARM_UP_REQUESTS);
      const [from, before] = [monotonicUs(), cpuTimes(pid)];
      await serve(name, PROFILED_REQUESTS);
      const [to, after] = [monotonicUs(), cpuTimes(pid)];
      // The profile is written as the process exits.
      await stop(child);
      const [file] = readdirSync(join(directory, name));
      const profile = JSON.parse(readFileSync(join(directory, name, file), 'utf8')) as CpuProfile;
      measured.set(name, {
        layers: timePerLayer(profile, from, to, PROFILED_REQUESTS),
        userMs: (after.userMs - before.userMs) / PROFILED_REQUESTS,
        systemMs: (after.systemMs - before.systemMs) / PROFILED_REQUESTS,
      });
      await drain(context);
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  const [service, floor] = [measured.get('service'), measured.get('floor')];
  if (!service || !floor) return;
  const of = (layers: Map<string, number>, layer: string) => layers.get(layer) ?? 0;
  const layers = [...new Set([...service.layers.keys(), ...floor.layers.keys()])].sort(
    (a, b) => of(service.layers, b) - of(floor.layers, b) - (of(service.layers, a) - of(floor.layers, a)),
  );
  const total = (layers: Map<string, number>) => [...layers.values()].reduce((sum, ms) => sum + ms, 0);
  console.log(
    `\n## Where a user-page-1 request's time goes (${PROFILED_REQUESTS} requests after ${PROFILE_WARM_UP_REQUESTS} to warm up, ${connections} connections; self time in ms per request)\n`,
  );
  console.log('| part | service ms/request | floor ms/request | difference |');
  console.log('|---|---|---|---|');
  for (const layer of layers) {
    const [mine, floors] = [of(service.layers, layer), of(floor.layers, layer)];
    console.log(`| ${layer} | ${mine.toFixed(3)} | ${floors.toFixed(3)} | ${(mine - floors).toFixed(3)} |`);
  }
  const [busy, floorBusy] = [total(service.layers), total(floor.layers)];
  console.log(
    `| **busy in all** | **${busy.toFixed(3)}** | **${floorBusy.toFixed(3)}** | **${(busy - floorBusy).toFixed(3)}** |`,
  );
  console.log(
    `\nCPU time from /proc over the same requests, ms per request: service ${service.userMs.toFixed(3)} user + ${service.systemMs.toFixed(3)} system; floor ${floor.userMs.toFixed(3)} user + ${floor.systemMs.toFixed(3)} system. The sampler counts a thread descheduled inside a system call as busy in it, so rows can exceed /proc's time.`,
  );
}
