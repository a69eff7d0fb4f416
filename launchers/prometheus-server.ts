import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './mysql-server';
import { waitFor } from './wait-for';
import { killOnExit, removeOnExit } from './reap-on-exit';

const INSTALL_HINT =
  'No prometheus found in /usr/bin. Install one (Debian/Ubuntu: sudo apt-get install -y prometheus; it is not started).';

/** An alert as Prometheus's `/api/v1/alerts` reports it. */
export interface PrometheusAlert {
  labels: Record<string, string>;
  state: 'pending' | 'firing';
}

export interface ThrowawayPrometheus {
  url: string;
  alerts(): Promise<PrometheusAlert[]>;
  /** The series of an instant PromQL query. */
  query(expression: string): Promise<unknown[]>;
  /** Whether the last scrape of every target of `job` succeeded. */
  targetsUp(job: string): Promise<boolean>;
  /** Stops this server (SIGTERM, by its PID), waits until it has exited and removes its data. */
  stop(): Promise<void>;
}

/**
 * A private Prometheus on a free port, scraping `targets` as the job
 * `job` every second and evaluating `rules` (YAML text) every second, with
 * its data in a temporary directory. The machine's own Prometheus, if any,
 * is never touched.
 */
export async function startThrowawayPrometheus(
  job: string,
  targets: string[],
  rules: string,
): Promise<ThrowawayPrometheus> {
  const binary = '/usr/bin/prometheus';
  if (!existsSync(binary)) throw new Error(INSTALL_HINT);
  const directory = mkdtempSync(join(tmpdir(), 'orders-prometheus-'));
  const throwawayData = removeOnExit(directory);
  writeFileSync(join(directory, 'rules.yml'), rules);
  writeFileSync(
    join(directory, 'prometheus.yml'),
    JSON.stringify({
      global: { scrape_interval: '1s', scrape_timeout: '500ms', evaluation_interval: '1s' },
      rule_files: [join(directory, 'rules.yml')],
      scrape_configs: [{ job_name: job, static_configs: [{ targets }] }],
    }),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  const child: ChildProcess = spawn(
    binary,
    [
      `--config.file=${join(directory, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(directory, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  killOnExit(child);
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));

  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(directory, { recursive: true, force: true });
    throwawayData.release();
  };
  const api = async <T>(path: string): Promise<T> =>
    ((await (await fetch(`${url}${path}`, { signal: AbortSignal.timeout(2000) })).json()) as { data: T }).data;

  try {
    await waitFor(`prometheus on port ${port}`, async () => {
      if (child.exitCode !== null) throw new Error(`prometheus exited:\n${output}`);
      return fetch(`${url}/-/ready`).then(
        (response) => response.ok,
        () => false,
      );
    });
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    url,
    alerts: async () => (await api<{ alerts: PrometheusAlert[] }>('/api/v1/alerts')).alerts,
    query: async (expression) =>
      (await api<{ result: unknown[] }>(`/api/v1/query?query=${encodeURIComponent(expression)}`)).result,
    targetsUp: async (wanted) => {
      const { activeTargets } = await api<{
        activeTargets: Array<{ labels: Record<string, string>; health: string }>;
      }>('/api/v1/targets');
      const ofJob = activeTargets.filter((target) => target.labels.job === wanted);
      return ofJob.length > 0 && ofJob.every((target) => target.health === 'up');
    },
    stop,
  };
}
