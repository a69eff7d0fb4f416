import { beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { MEMBERS, seedDataset } from '../support/data/dataset';
import { startTestService, type ServiceProcess } from '../support/app/test-app';
import {
  freshMysqlDatabase,
  maintenanceOptions,
  mysqlEnvironment,
  type MysqlTarget,
} from '../support/app/test-database';
import { userToken } from '../support/app/tokens';
import { bearer } from '../support/app/api-client';

/** The memory target under bursts (peak resident memory of the process). */
const MAX_RSS_MB = 200;

/**
 * The heap is the operator's to set (docs/API.md §15): as one would for an instance given 256 MiB, with the
 * settings the service was measured with on Node.js 24 (bench/lib/node-flags.ts).
 */
const OPERATOR_NODE_OPTIONS = '--max-old-space-size=96 --max-semi-space-size=8';

/** Peak resident memory of a process so far (VmHWM), in MB. */
const peakRssMb = (pid: number): number =>
  Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

interface BurstResult {
  statuses: Map<number | string, number>;
  latencies: number[];
  /** Every /health/live answer while the burst ran. */
  liveness: Array<number | string>;
}

/** `clients` requests at once, each from its own connection, while /health/live is asked every 50 ms. */
async function burst(service: ServiceProcess, clients: number): Promise<BurstResult> {
  const liveness: Array<number | string> = [];
  let running = true;
  const probing = (async () => {
    while (running) {
      const started = Date.now();
      liveness.push(
        await fetch(`${service.baseUrl}/health/live`, { signal: AbortSignal.timeout(2000) }).then(
          (response) => response.status,
          (error: Error) => error.name,
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 50 - (Date.now() - started))));
    }
  })();
  const outcomes = await Promise.all(
    Array.from({ length: clients }, async (_, index) => {
      const sent = Date.now();
      const status = await fetch(`${service.baseUrl}/orders?page=${1 + (index % 3)}`, {
        headers: { ...bearer(userToken(MEMBERS[index % MEMBERS.length])), Connection: 'close' },
        signal: AbortSignal.timeout(30_000),
      }).then(
        async (response) => {
          await response.arrayBuffer();
          return response.status;
        },
        (error: Error & { cause?: { code?: string } }) => error.cause?.code ?? error.name,
      );
      return { status, latency: Date.now() - sent };
    }),
  );
  running = false;
  await probing;
  const statuses = new Map<number | string, number>();
  for (const { status } of outcomes) statuses.set(status, (statuses.get(status) ?? 0) + 1);
  return { statuses, latencies: outcomes.map((outcome) => outcome.latency).sort((a, b) => a - b), liveness };
}

const percentile = (sorted: number[], share: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))];

/**
 * docs/API.md §10, busy is not down: a burst of clients is served later rather
 * than refused while the database is healthy, and no burst, whatever the
 * pool size and deadline, takes the process down. The service runs as
 * production starts it (`npm run start:prod`: the build, made by the global setup, and its heap caps).
 */
describe('bursts of clients against the production start command', () => {
  let target: MysqlTarget;

  beforeAll(async () => {
    target = await freshMysqlDatabase('burst');
    const dataSource = new DataSource(maintenanceOptions(target));
    await dataSource.initialize();
    try {
      await seedDataset(dataSource, 77);
    } finally {
      await dataSource.destroy();
    }
  }, 180_000);

  async function withService<T>(environment: Record<string, string>, run: (service: ServiceProcess) => Promise<T>) {
    const service = await startTestService(
      {
        ...mysqlEnvironment(target),
        RATE_LIMIT_PER_MINUTE: '0',
        NODE_ENV: 'test',
        NODE_OPTIONS: OPERATOR_NODE_OPTIONS,
        ...environment,
      },
      { build: true },
    );
    try {
      return await run(service);
    } finally {
      service.child.kill('SIGTERM');
      await service.exited;
    }
  }

  it('serves 200 concurrent clients with 200s on a healthy database, later rather than refused', async () => {
    // 200 requests through 10 connections take 1–2 s on two cores shared with the other suites: close to the default
    // 2 s deadline. What is under test is that they wait their turn rather than being refused, so the deadline leaves room.
    await withService({ DB_POOL_SIZE: '10', DB_QUERY_TIMEOUT_MS: '5000' }, async (service) => {
      // An instance that has served before the spike, as one behind a balancer has: compiled and connected.
      for (let round = 0; round < 10; round += 1) await burst(service, 10);
      const result = await burst(service, 200);
      // Any refusal comes with the service's own word on it.
      const refusals = service
        .output()
        .split('\n')
        .filter((line) => line.includes('answered 503'));
      expect({ statuses: Object.fromEntries(result.statuses), refusals }).toEqual({
        statuses: { 200: 200 },
        refusals: [],
      });
      expect(result.liveness.every((status) => status === 200)).toBe(true);
      // Served within the deadline, waiting their turn.
      expect(percentile(result.latencies, 0.99)).toBeLessThan(5000 + 1000);
    });
  }, 120_000);

  it.each(['100', '250'])(
    'types most refusals of 400 clients at a %s ms deadline as busy, the database being healthy',
    async (deadline) => {
      // The database is blamed once it has answered nothing for half the deadline. On two cores shared by this client,
      // the service and MariaDB, a healthy server falls silent now and then under this load, and such a silence is
      // truthfully typed: 0.2–26 % of the refusals at 250 ms across fresh CI runs, 0.2–2.3 % at 100 ms on a quiet
      // machine, depending on what else it did. The rule this replaced typed 90 % of them as the database's: a majority
      // typed busy tells the two apart.
      await withService({ DB_QUERY_TIMEOUT_MS: deadline }, async (service) => {
        for (let round = 0; round < 10; round += 1) await burst(service, 10);
        const refusals = new Map<string, number>();
        let served = 0;
        // 400 clients at once, each sending 8 requests one after another.
        await Promise.all(
          Array.from({ length: 400 }, async (_, client) => {
            for (let request = 0; request < 8; request += 1) {
              const response = await fetch(`${service.baseUrl}/orders`, {
                headers: { ...bearer(userToken(MEMBERS[client % MEMBERS.length])) },
                signal: AbortSignal.timeout(30_000),
              });
              const body = (await response.json()) as { type?: string };
              if (response.status === 200) {
                served += 1;
                continue;
              }
              const kind = `${response.status} ${body.type} Retry-After: ${response.headers.get('retry-after')}`;
              refusals.set(kind, (refusals.get(kind) ?? 0) + 1);
            }
          }),
        );
        const refused = [...refusals.values()].reduce((sum, count) => sum + count, 0);
        const busy = refusals.get('503 /problems/service-busy Retry-After: 1') ?? 0;
        process.stdout.write(
          `400 clients × 8 at a ${deadline} ms deadline: ${served} served, refusals ${JSON.stringify(Object.fromEntries(refusals))}\n`,
        );
        expect(served + refused).toBe(3200);
        expect(refused).toBeGreaterThan(0);
        expect(busy).toBeGreaterThan(refused / 2);
      });
    },
    120_000,
  );

  it.each([
    ['10', '2000'],
    ['100', '100'],
    ['100', '300'],
  ])(
    'stays alive under 1,000 clients with pool %s and deadline %s ms: liveness answers, memory bounded, only 200 or 503',
    async (pool, deadline) => {
      await withService({ DB_POOL_SIZE: pool, DB_QUERY_TIMEOUT_MS: deadline }, async (service) => {
        const first = await burst(service, 1000);
        const second = await burst(service, 1000);
        // A failure names itself: the service's own log line for any 500 comes with it.
        const failures = service
          .output()
          .split('\n')
          .filter((line) => line.includes('answered 500'));
        for (const result of [first, second]) {
          const kinds = [...result.statuses.keys()];
          expect({ unexpected: kinds.filter((status) => status !== 200 && status !== 503), failures }).toEqual({
            unexpected: [],
            failures: [],
          });
          expect(result.liveness.length).toBeGreaterThan(0);
          expect(result.liveness.filter((status) => status !== 200)).toEqual([]);
        }
        expect(service.child.exitCode).toBeNull();
        expect((await fetch(`${service.baseUrl}/health/live`)).status).toBe(200);
        const peak = peakRssMb(service.child.pid ?? 0);
        process.stdout.write(
          `peak RSS under 1,000 clients, pool ${pool}, deadline ${deadline} ms: ${peak.toFixed(0)} MB\n`,
        );
        expect(peak).toBeLessThan(MAX_RSS_MB);
        expect(service.output()).not.toContain('FATAL ERROR');
      });
    },
    120_000,
  );
});
