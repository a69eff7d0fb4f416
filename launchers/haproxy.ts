import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { freePort } from './mysql-server';
import { waitFor } from './wait-for';
import { killOnExit } from './reap-on-exit';

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
  // Until its checks have passed, HAProxy may take an instance out and answer 503 itself: a caller starts with both
  // checked and in service, as after any start of a balancer in front of running instances.
  await waitFor('HAProxy to have checked both instances and put them in service', async () => {
    const checked = await servers();
    return (
      checked.length === instances.length && checked.every(({ state, check }) => state === 'UP' && check === 'L7OK')
    );
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    serverStates,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
