import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './mysql-server';
import { waitFor } from './wait-for';
import { killOnExit, removeOnExit } from './reap-on-exit';

const INSTALL_HINT =
  'No haproxy found in /usr/sbin or /usr/bin. Install it (Debian/Ubuntu: sudo apt-get install -y haproxy).';

export interface Haproxy {
  baseUrl: string;
  /** The state HAProxy gives each server now (`UP`, `DOWN`, `UP 1/2`, …), by server name. */
  serverStates(): Promise<Record<string, string>>;
  stop(): Promise<void>;
}

function haproxyBinary(): string {
  for (const candidate of ['/usr/sbin/haproxy', '/usr/bin/haproxy']) if (existsSync(candidate)) return candidate;
  throw new Error(INSTALL_HINT);
}

/** HAProxy with the project's own configuration (deploy/haproxy.cfg) in front of the given instances. */
export async function startHaproxy(instances: [string, string]): Promise<Haproxy> {
  const [port, statsPort] = [await freePort(), await freePort()];
  const child: ChildProcess = spawn(haproxyBinary(), ['-db', '-f', 'deploy/haproxy.cfg'], {
    env: {
      ...process.env,
      ORDERS_LB_BIND: `127.0.0.1:${port}`,
      ORDERS_LB_STATS_BIND: `127.0.0.1:${statsPort}`,
      ORDERS_INSTANCE_1: instances[0],
      ORDERS_INSTANCE_2: instances[1],
    },
    stdio: 'ignore',
  });
  killOnExit(child);
  /** Each server's state and its last health check's result (`L7OK` once one passed), from the stats' CSV. */
  const servers = async (): Promise<Array<{ name: string; state: string; check: string }>> => {
    const csv = await (await fetch(`http://127.0.0.1:${statsPort}/stats;csv`)).text();
    return csv
      .split('\n')
      .map((line) => line.split(','))
      .filter((fields) => fields[0] === 'orders_instances' && fields[1] !== 'BACKEND')
      .map((fields) => ({ name: fields[1], state: fields[17], check: fields[36] }));
  };
  const serverStates = async (): Promise<Record<string, string>> =>
    Object.fromEntries((await servers()).map(({ name, state }) => [name, state]));
  await waitFor('HAProxy to listen', () =>
    serverStates().then(
      () => true,
      () => false,
    ),
  );
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  // Until its checks have passed, HAProxy may take an instance out and answer 503 itself: a caller starts with both
  // checked and in service, as after any start of a balancer in front of running instances. Two checks each, which a
  // machine busy with other suites may take well past their half-second interval to pass.
  await waitFor(
    'HAProxy to have checked both instances and put them in service',
    async () => {
      const checked = await servers();
      return (
        checked.length === instances.length && checked.every(({ state, check }) => state === 'UP' && check === 'L7OK')
      );
    },
    { timeoutMs: 30_000 },
  ).catch(async (error: Error) => {
    const seen = await servers().catch(() => []);
    // A caller that gets no handle cannot stop it.
    await stop();
    throw new Error(`${error.message}; HAProxy last saw ${JSON.stringify(seen)}`);
  });
  return { baseUrl: `http://127.0.0.1:${port}`, serverStates, stop };
}

/** A database address that HA tooling moves: HAProxy in TCP mode, one server in service at a time. */
export interface DatabaseAddress {
  port: number;
  /**
   * Moves the address to another of its servers, as orchestrator's hooks do: new sessions reach that one, and the old
   * one's are cut unless the address was started keeping them.
   */
  moveTo(server: number): Promise<void>;
  stop(): Promise<void>;
}

/** HAProxy's runtime API, over its admin socket: one command, its answer. */
function runtimeCommand(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const client = createConnection(socket, () => client.end(`${command}\n`));
    let answer = '';
    client.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    client.on('end', () => resolve(answer));
    client.on('error', reject);
  });
}

/**
 * HAProxy as the moving address in front of database servers on `ports` (docs/DEPLOYING.md, "HA tooling"): the
 * first in service, the others held in maintenance until the address is moved to one of them. With `keepsSessions`,
 * a move leaves the old server's sessions open, as a proxy or virtual IP that only routes new ones does.
 */
export async function startDatabaseAddress(
  ports: readonly number[],
  { keepsSessions = false }: { keepsSessions?: boolean } = {},
): Promise<DatabaseAddress> {
  const port = await freePort();
  const directory = mkdtempSync(join(tmpdir(), 'orders-address-'));
  const removal = removeOnExit(directory);
  const socket = join(directory, 'admin.sock');
  const config = join(directory, 'haproxy.cfg');
  writeFileSync(
    config,
    [
      'global',
      `  stats socket ${socket} mode 600 level admin`,
      'defaults',
      '  mode tcp',
      '  timeout connect 1s',
      '  timeout client 1h',
      '  timeout server 1h',
      'listen database',
      `  bind 127.0.0.1:${port}`,
      ...ports.map(
        (serverPort, index) =>
          `  server s${index} 127.0.0.1:${serverPort}${index === 0 ? '' : ' disabled'}` +
          (keepsSessions ? '' : ' on-marked-down shutdown-sessions'),
      ),
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(haproxyBinary(), ['-db', '-f', config], { stdio: 'ignore' });
  killOnExit(child);
  await waitFor('HAProxy to take commands', () =>
    runtimeCommand(socket, 'show servers state').then(
      () => true,
      () => false,
    ),
  );
  let current = 0;
  return {
    port,
    async moveTo(server) {
      await runtimeCommand(socket, `set server database/s${current} state maint`);
      if (!keepsSessions) await runtimeCommand(socket, `shutdown sessions server database/s${current}`);
      await runtimeCommand(socket, `set server database/s${server} state ready`);
      current = server;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(directory, { recursive: true, force: true });
      removal.release();
    },
  };
}
