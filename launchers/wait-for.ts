import type { ChildProcess } from 'node:child_process';

/**
 * Polls `condition` until it returns a value other than `undefined` or
 * `false`, and returns that value; fails naming `what` after `timeoutMs`.
 * Tests wait on the condition they stand for, never on a fixed sleep.
 */
export async function waitFor<T>(
  what: string,
  condition: () => T | undefined | false | Promise<T | undefined | false>,
  { timeoutMs = 10_000, intervalMs = 25 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Waits until a service process answers 200 on `path` (liveness by default);
 * fails at once with its output if it exits, and kills it if it never does.
 */
export async function waitUntilServing(
  child: ChildProcess,
  baseUrl: string,
  { path = '/health/live', timeoutMs = 60_000, output = () => '' }: WaitOptions = {},
): Promise<void> {
  try {
    await waitFor(
      `${baseUrl}${path}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`The service exited at start:\n${output()}`);
        return await fetch(`${baseUrl}${path}`).then(
          (response) => response.ok,
          () => false,
        );
      },
      { timeoutMs, intervalMs: 100 },
    );
  } catch (error) {
    if (child.exitCode === null) child.kill('SIGKILL');
    throw error instanceof Error && child.exitCode === null ? new Error(`${error.message}\n${output()}`) : error;
  }
}

interface WaitOptions {
  path?: string;
  timeoutMs?: number;
  /** What the process printed so far, for the failure's message. */
  output?: () => string;
}
