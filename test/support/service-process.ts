import { spawn, type ChildProcess } from 'node:child_process';
import { PRODUCTION_NODE_ARGUMENTS } from '../../bench/production-command';
import { freePort } from './mysql-server';
import { BASE_TEST_ENVIRONMENT } from './test-app';

export interface ServiceProcess {
  child: ChildProcess;
  baseUrl: string;
  output(): string;
  exited: Promise<number | null>;
}

/**
 * Runs the service as its own process, for what only a process can show
 * (signals, exit codes, memory): from the sources, or with `build` the
 * compiled `dist/` exactly as `npm run start:prod` starts it.
 */
export async function startServiceProcess(
  environment: Record<string, string>,
  { build = false, port: wanted }: { build?: boolean; port?: number } = {},
): Promise<ServiceProcess> {
  const port = wanted ?? (await freePort());
  let output = '';
  const args = build ? PRODUCTION_NODE_ARGUMENTS : ['-r', 'ts-node/register', 'src/main.ts'];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...BASE_TEST_ENVIRONMENT, LOG_LEVEL: 'info', ...environment, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`The service exited at start:\n${output}`);
    try {
      if ((await fetch(`${baseUrl}/health/live`)).ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`The service did not start in time:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { child, baseUrl, output: () => output, exited };
}
