import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';

/**
 * docs/API.md §18: a deployment gives each server cores of its own, so the sale bench pins them on this machine
 * (`taskset`, util-linux), and runs unpinned beside it.
 */
export type Pinning = 'pinned' | 'unpinned';

/** The primary and the sale's writers on one core; the replica, the service and the reading clients on the other. */
export const CORES = { primary: '0', replica: '1' } as const;

/** Every core of the machine: a process unpinned. */
export const EVERY_CORE = `0-${cpus().length - 1}`;

/** Sets the cores a running process and all its threads may run on; its threads started later inherit them. */
export function pinProcess(pid: number, cores: string): void {
  const result = spawnSync('taskset', ['--all-tasks', '--cpu-list', '--pid', cores, String(pid)], { encoding: 'utf8' });
  if (result.error || result.status !== 0) {
    throw new Error(`taskset could not pin process ${pid} to ${cores}: ${result.error?.message ?? result.stderr}`);
  }
}
