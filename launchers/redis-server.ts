import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Redis } from 'ioredis';
import { freePort } from './mysql-server';
import { waitFor } from './wait-for';
import { killOnExit } from './reap-on-exit';

const INSTALL_HINT =
  'No redis-server found on the PATH or in /usr/bin. Install one (Debian/Ubuntu: sudo apt-get install -y redis-server).';

export interface ThrowawayRedis {
  port: number;
  url: string;
  /** Kills this server (SIGKILL, by its PID) and waits until it has exited. */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>;
}

function redisServerBinary(): string {
  for (const candidate of ['/usr/bin/redis-server', '/usr/local/bin/redis-server']) {
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(INSTALL_HINT);
}

/** A private redis-server on a free port, in memory only; the machine's own Redis is shared and never touched. */
export async function startThrowawayRedis(): Promise<ThrowawayRedis> {
  const binary = redisServerBinary();
  const port = await freePort();
  let child: ChildProcess | undefined;

  const start = async (): Promise<void> => {
    child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    killOnExit(child);
    const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null });
    // Refusals until the server listens are expected; ioredis would print each as an unhandled error event.
    probe.on('error', () => undefined);
    try {
      await waitFor(`redis-server on port ${port}`, () =>
        probe.connect().then(
          async () => (await probe.ping()) === 'PONG',
          () => false,
        ),
      );
    } finally {
      probe.disconnect();
    }
  };
  await start();

  return {
    port,
    url: `redis://127.0.0.1:${port}/0`,
    async kill() {
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGKILL');
      await exited;
    },
    restart: start,
  };
}
