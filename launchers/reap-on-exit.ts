import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

/** What is still to be done should this process exit now: the processes to kill first, then the data to remove. */
const left = { processes: new Set<ChildProcess>(), directories: new Set<string>() };
let installed = false;

function reapAtExit(): void {
  if (installed) return;
  installed = true;
  process.once('exit', () => {
    for (const child of left.processes) child.kill('SIGKILL');
    // A server killed a moment ago may still be closing its files: retry what it held.
    for (const directory of left.directories) rmSync(directory, { recursive: true, force: true, maxRetries: 5 });
  });
}

/**
 * Kills `child` if this process exits while it still runs: a bench or a test run that is interrupted or crashes
 * leaves no server of its own behind (a run that ends as it should stops its servers itself).
 */
export function killOnExit(child: ChildProcess): void {
  reapAtExit();
  left.processes.add(child);
  child.once('exit', () => left.processes.delete(child));
}

/**
 * Removes `directory` if this process exits before `release` is called: a throw-away server's data (gigabytes for
 * the bench's 10M orders) does not outlive the run that made it.
 */
export function removeOnExit(directory: string): { release(): void } {
  reapAtExit();
  left.directories.add(directory);
  return { release: () => left.directories.delete(directory) };
}
