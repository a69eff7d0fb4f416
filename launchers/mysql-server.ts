import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { killOnExit, removeOnExit } from './reap-on-exit';
import { waitFor } from './wait-for';

export interface ThrowawayMysql {
  url: string;
  port: number;
  /** The server process's id while it runs. */
  pid(): number | undefined;
  /** Sends a signal to the server process: SIGCONT resumes it after `pause`. */
  signal(signal: NodeJS.Signals): void;
  /** Pauses the server (SIGSTOP), as a frozen VM would, and waits until the kernel reports it stopped. */
  pause(): Promise<void>;
  /** Kills the server at once, as a crash would. */
  kill(): Promise<void>;
  /** Starts the server again on the same port and data, and waits until it answers. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const INSTALL_HINT =
  'No MySQL for the tests: set TEST_MYSQL_URL (e.g. mysql://root@127.0.0.1:3306/orders_test) or install a server ' +
  'whose mariadbd or mysqld the tests can start (Debian/Ubuntu: sudo apt-get install -y mariadb-server).';

/** Debian installs the servers in sbin directories, which an ordinary user's PATH often lacks. */
function findExecutable(names: string[]): string | undefined {
  const directories = [
    ...(process.env.PATH ?? '').split(delimiter),
    '/usr/sbin',
    '/usr/local/sbin',
    '/usr/local/mysql/bin',
  ];
  for (const name of names) {
    for (const directory of directories) {
      const candidate = join(directory, name);
      if (directory && existsSync(candidate)) return candidate;
    }
  }
  return undefined;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

async function waitUntilReady(port: number, child: ChildProcess, errorLog: string, tls?: ServerTls): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      const log = existsSync(errorLog) ? readFileSync(errorLog, 'utf8').slice(-2000) : '';
      throw new Error(`The throw-away MySQL server exited with code ${child.exitCode}:\n${log}`);
    }
    try {
      const connection = await createConnection({
        host: '127.0.0.1',
        port,
        user: 'root',
        ...(tls && { ssl: { ca: readFileSync(tls.ca, 'utf8'), rejectUnauthorized: true, verifyIdentity: false } }),
      });
      await connection.end();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** How a server takes part in replication; without one it keeps no binary log. */
export interface ReplicationRole {
  role: 'primary' | 'replica';
  serverId: number;
  /** A replica that HA tooling may promote and re-point others at logs what it applies, so that it can serve them. */
  promotable?: boolean;
}

function replicationArguments(replication?: ReplicationRole): string[] {
  if (!replication) return ['--skip-log-bin'];
  const common = [`--server-id=${replication.serverId}`, '--gtid-strict-mode=ON', '--log-bin', '--binlog-format=ROW'];
  return replication.role === 'primary'
    ? [...common, '--log-slave-updates']
    : // After a restart a replica resumes replicating by itself, as in production.
      [...common, '--read-only=ON', ...(replication.promotable ? ['--log-slave-updates'] : [])];
}

/**
 * The option file every replica of the project runs with (docs/adr/0018): what an operator copies is what the tests,
 * `npm run stack` and the bench start their replicas from.
 */
const REPLICA_OPTION_FILE = resolve('deploy/mariadb/replica.cnf');

const SIZE_SUFFIXES: Record<string, number> = { K: 2 ** 10, M: 2 ** 20, G: 2 ** 30 };

/**
 * The settings of one group of the shipped option file, as the server reads them (`name = value`, `#` comments),
 * each value as the server reports it back: a size such as `2G` in bytes.
 */
export function shippedReplicaOptions(group: string): Map<string, string> {
  const settings = new Map<string, string>();
  let current: string | undefined;
  for (const raw of readFileSync(REPLICA_OPTION_FILE, 'utf8').split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) current = header[1];
    else if (current === group) {
      const [name, value] = line.split('=').map((part) => part.trim());
      const size = /^(\d+)([KMG])$/i.exec(value);
      settings.set(name, size ? String(Number(size[1]) * SIZE_SUFFIXES[size[2].toUpperCase()]) : value);
    }
  }
  return settings;
}

/** A replica reads the shipped option file and nothing else; any other server reads none. */
function optionFileArguments(replication?: ReplicationRole): string[] {
  return replication?.role === 'replica' ? [`--defaults-file=${REPLICA_OPTION_FILE}`] : ['--no-defaults'];
}

/** How the server keeps what it commits. */
export interface StorageOptions {
  /**
   * Every commit is on disk before it is acknowledged (binary log synced, redo log flushed): how a production
   * primary runs, and what the write path has to be measured against (docs/API.md §7). Without it, the redo log is
   * flushed once a second, which is quicker for tests that only need a server.
   */
  durable?: boolean;
  bufferPoolMb?: number;
  /**
   * The redo log's size; the server's own default (96 MiB on MariaDB 10.11) without it. How many changes a page
   * gathers before it must be written out depends on it: a primary taking a sale has one sized to its buffer pool.
   */
  redoLogMb?: number;
  maxConnections?: number;
  /**
   * A directory that outlives the server (a bench's data, kept for its next run): initialised only when it holds
   * no data yet, shut down cleanly, and never deleted. Without it, a temporary directory deleted on `stop`.
   */
  directory?: string;
}

function flushArguments(durable: boolean, replication?: ReplicationRole): string[] {
  if (durable) return ['--innodb-flush-log-at-trx-commit=1', '--sync-binlog=1'];
  // A replica flushes as the shipped option file says, which a flag on the command line would override.
  if (replication?.role === 'replica') return [];
  return ['--innodb-flush-log-at-trx-commit=2'];
}

function storageArguments(
  { durable = false, bufferPoolMb = 256, redoLogMb, maxConnections = 151 }: StorageOptions,
  replication?: ReplicationRole,
): string[] {
  return [
    `--innodb-buffer-pool-size=${bufferPoolMb}M`,
    ...(redoLogMb === undefined ? [] : [`--innodb-log-file-size=${redoLogMb}M`]),
    `--max-connections=${maxConnections}`,
    ...flushArguments(durable, replication),
  ];
}

/** A server that speaks TLS with this certificate and key (PEM files), and refuses plain connections. */
export interface ServerTls {
  ca: string;
  cert: string;
  key: string;
}

function tlsArguments(tls: ServerTls | undefined): string[] {
  if (!tls) return [];
  return [`--ssl-ca=${tls.ca}`, `--ssl-cert=${tls.cert}`, `--ssl-key=${tls.key}`, '--require-secure-transport=ON'];
}

/** Which kind of server `startThrowawayMysql` would start here; undefined when neither is installed. */
export function throwawayServerKind(): 'mariadb' | 'mysql' | undefined {
  const server = findExecutable(['mariadbd', 'mysqld']);
  if (!server) return undefined;
  return /mariadb/i.test(spawnSync(server, ['--version'], { encoding: 'utf8' }).stdout ?? '') ? 'mariadb' : 'mysql';
}

/**
 * Starts a private MariaDB (or MySQL) in a temporary directory on a free
 * port, for the duration of the test run (docs/DEVELOPING.md, "Tests").
 */
export async function startThrowawayMysql(
  replication?: ReplicationRole,
  storage: StorageOptions = {},
  tls?: ServerTls,
): Promise<ThrowawayMysql> {
  const server = findExecutable(['mariadbd', 'mysqld']);
  if (!server) throw new Error(INSTALL_HINT);
  const isMariaDb = throwawayServerKind() === 'mariadb';
  const kept = storage.directory;
  const base = kept ?? mkdtempSync(join(tmpdir(), 'orders-test-mysql-'));
  const throwawayData = kept === undefined ? removeOnExit(base) : undefined;
  const dataDir = join(base, 'data');
  const errorLog = join(base, 'error.log');

  const initialized = kept !== undefined && existsSync(join(dataDir, 'mysql'));
  const initialize = initialized
    ? undefined
    : isMariaDb
      ? spawnSync(
          findExecutable(['mariadb-install-db', 'mysql_install_db']) ?? 'mariadb-install-db',
          [
            '--no-defaults',
            '--user=root',
            `--datadir=${dataDir}`,
            '--auth-root-authentication-method=normal',
            '--skip-test-db',
          ],
          { encoding: 'utf8' },
        )
      : spawnSync(server, ['--no-defaults', '--initialize-insecure', `--datadir=${dataDir}`, '--user=root'], {
          encoding: 'utf8',
        });
  if (initialize && initialize.status !== 0) {
    throw new Error(
      `Could not initialise a throw-away MySQL data directory:\n${initialize.stderr ?? initialize.error}`,
    );
  }

  const port = await freePort();
  const start = async (): Promise<ChildProcess> => {
    const child = spawn(
      server,
      [
        // The server reads its option files only when told so first.
        ...optionFileArguments(replication),
        '--user=root',
        `--datadir=${dataDir}`,
        `--socket=${join(base, 'mysqld.sock')}`,
        `--port=${port}`,
        '--bind-address=127.0.0.1',
        `--pid-file=${join(base, 'mysqld.pid')}`,
        `--log-error=${errorLog}`,
        ...replicationArguments(replication),
        ...storageArguments(storage, replication),
        ...tlsArguments(tls),
        '--character-set-server=utf8mb4',
        '--collation-server=utf8mb4_unicode_ci',
        '--default-time-zone=+00:00',
      ],
      { stdio: 'ignore' },
    );
    killOnExit(child);
    await waitUntilReady(port, child, errorLog, tls);
    return child;
  };
  let child = await start();
  const kill = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };

  return {
    url: `mysql://root@127.0.0.1:${port}/orders_test`,
    port,
    pid: () => child.pid,
    signal: (signal) => child.kill(signal),
    pause: async () => {
      child.kill('SIGSTOP');
      const stat = `/proc/${child.pid}/stat`;
      // The third field after the command name: T once every thread has stopped.
      await waitFor('the server to be stopped', () => / T /.test(readFileSync(stat, 'utf8').replace(/^.*\)/, '')));
    },
    kill,
    restart: async () => {
      await kill();
      child = await start();
    },
    // A temporary directory's data is deleted right after, so there is nothing for a clean shutdown to save.
    stop: async () => {
      child.kill('SIGCONT');
      if (!kept) {
        await kill();
        rmSync(base, { recursive: true, force: true });
        throwawayData?.release();
        return;
      }
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
