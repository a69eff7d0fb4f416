import autocannon from 'autocannon';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { BenchContext } from './context';

let clockTicksPerSecond: number | undefined;
/** The unit of /proc's CPU times, asked of the system on first use. */
const ticksPerSecond = () =>
  (clockTicksPerSecond ??= Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || 100));

/** CPU time a process has used so far in user and in system mode (all threads), in ms, from /proc/PID/stat. */
export function cpuTimes(pid: number): { userMs: number; systemMs: number } {
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis are fixed.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const toMs = (ticks: string) => (Number(ticks) / ticksPerSecond()) * 1000;
  return { userMs: toMs(fields[11]), systemMs: toMs(fields[12]) };
}
export const cpuMs = (pid: number): number => {
  const { userMs, systemMs } = cpuTimes(pid);
  return userMs + systemMs;
};

/**
 * autocannon against one URL for `duration` seconds: each connection sends its next request as soon as its last is
 * answered, or, with `rate`, the connections together send that many a second, however fast they are answered.
 */
export async function load(target: string, token: string, duration: number, concurrency: number, rate?: number) {
  const result = await autocannon({
    url: target,
    connections: concurrency,
    duration,
    timeout: 60,
    headers: { authorization: `Bearer ${token}` },
    ...(rate !== undefined && { overallRate: rate }),
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    answered: result['2xx'],
  };
}

/** Waits until the database runs no query on `orders` any more (abandoned slow ones included). */
/** Each warm-up window, and the most of them: a cold server's JIT (slower to tier up under `--no-maglev`) and caches. */
const WARM_UP_WINDOW_SECONDS = 2;
const WARM_UP_MOST_WINDOWS = 10;
/** Two windows whose throughput is this close say the server has reached its steady state. */
const WARM_UP_SETTLED = 0.05;

/**
 * Untimed load on one URL until the server is warm: windows follow each other until one's throughput is within
 * WARM_UP_SETTLED of the one before, so that a measured window carries neither compilation nor its caches' filling.
 * Each connection sends its next request as soon as its last is answered, whatever pace the windows measured take.
 * Returns how many windows it took.
 */
export async function warmUp(target: string, token: string, concurrency: number): Promise<number> {
  let previous = 0;
  for (let window = 1; window <= WARM_UP_MOST_WINDOWS; window += 1) {
    const { answered } = await load(target, token, WARM_UP_WINDOW_SECONDS, concurrency);
    if (window > 1 && Math.abs(answered - previous) <= WARM_UP_SETTLED * previous) return window;
    previous = answered;
  }
  return WARM_UP_MOST_WINDOWS;
}

export async function drain(context: BenchContext): Promise<void> {
  const dataSource = await context.monitor();
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const [{ running }] = await dataSource.query<Array<{ running: number }>>(
      "SELECT COUNT(*) AS running FROM information_schema.PROCESSLIST WHERE COMMAND = 'Query' AND INFO LIKE '%orders%' AND INFO NOT LIKE '%PROCESSLIST%'",
    );
    if (Number(running) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
/** A count for a table or a log line: rounded, with thousands separated. */
export const thousands = (value: number): string => Math.round(value).toLocaleString('en-US');
export const median = (numbers: number[]) => [...numbers].sort((a, b) => a - b)[Math.floor(numbers.length / 2)];
export const mean = (numbers: number[]) => numbers.reduce((sum, value) => sum + value, 0) / numbers.length;
export const peakRss = (child: ChildProcess) =>
  Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
