import { spawn, type ChildProcess } from 'node:child_process';
import { PRODUCTION_NODE_ARGUMENTS } from './production-command';
import { freePort } from './mysql-server';
import { waitUntilServing } from './wait-for';
import { killOnExit } from './reap-on-exit';

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
  options: { build?: boolean; port?: number } = {},
): Promise<ServiceProcess> {
  // A free port is picked, then bound by the child: another process may take it in between. Such a start is
  // retried on another port; a port the caller named is not.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startOnce(environment, options);
    } catch (error) {
      const taken = error instanceof Error && error.message.includes('EADDRINUSE');
      if (!taken || options.port !== undefined || attempt === 3) throw error;
    }
  }
}

async function startOnce(
  environment: Record<string, string>,
  { build = false, port: wanted }: { build?: boolean; port?: number },
): Promise<ServiceProcess> {
  const port = wanted ?? (await freePort());
  let output = '';
  const args = build ? PRODUCTION_NODE_ARGUMENTS : ['-r', 'ts-node/register', 'src/main.ts'];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, LOG_LEVEL: 'info', ...environment, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  killOnExit(child);
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilServing(child, baseUrl, { output: () => output });
  return { child, baseUrl, output: () => output, exited };
}
