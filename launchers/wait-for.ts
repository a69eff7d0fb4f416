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
  { path = '/health/live', headers, timeoutMs = 60_000, output = () => '' }: WaitOptions = {},
): Promise<void> {
  try {
    await waitFor(
      `${baseUrl}${path}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`The service exited at start:\n${output()}`);
        return await fetch(`${baseUrl}${path}`, { headers }).then(
          (response) => response.ok,
          () => false,
        );
      },
      { timeoutMs, intervalMs: 100 },
    );
  } catch (error) {
    // A process that exited has said why in the error already; one that never served is stopped here.
    if (child.exitCode !== null) throw error;
    child.kill('SIGKILL');
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${output()}`);
  }
}

interface WaitOptions {
  path?: string;
  /** For a server that answers only listings, which need a token. */
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** What the process printed so far, for the failure's message. */
  output?: () => string;
}
