import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { seedDataset } from '../support/data/dataset';
import { startHaproxy, type Haproxy } from '../../launchers/haproxy';
import { startTestApp, startTestService, type ServiceProcess } from '../support/app/test-app';
import { freshMysqlDatabase, mysqlEnvironment, type MysqlTarget } from '../support/app/test-database';
import { userToken } from '../support/app/tokens';
import { waitFor } from '../../launchers/wait-for';
import { bearer } from '../support/app/api-client';

/** Above HAProxy's `fall` × `inter` (2 × 500 ms in deploy/haproxy.cfg), as docs/DEPLOYING.md says to set it. */
const SHUTDOWN_DELAY_MS = '1500';

/**
 * docs/API.md §10, §11: a rolling restart of both instances behind HAProxy
 * (deploy/haproxy.cfg, `retries 0`) under steady load loses no request.
 */
describe('rolling restart behind HAProxy', () => {
  let target: MysqlTarget;
  const instances: ServiceProcess[] = [];
  let haproxy: Haproxy | undefined;

  const start = (port?: number) =>
    startTestService(
      { ...mysqlEnvironment(target), SHUTDOWN_DELAY_MS, RATE_LIMIT_PER_MINUTE: '0', NODE_ENV: 'test' },
      { build: true, port },
    );

  beforeAll(async () => {
    target = await freshMysqlDatabase('rolling');
    const seeding = await startTestApp(mysqlEnvironment(target));
    await seedDataset(seeding.dataSource, 5);
    await seeding.close();
    instances.push(await start(), await start());
    haproxy = await startHaproxy([instances[0].baseUrl.slice(7), instances[1].baseUrl.slice(7)]);
    await bothUp();
  }, 120_000);

  /** Waits until HAProxy routes to both instances; a timeout says what HAProxy last saw. */
  async function bothUp(): Promise<void> {
    let seen: Record<string, string> = {};
    await waitFor(
      'HAProxy to see both instances up',
      async () => {
        seen = (await haproxy?.serverStates()) ?? {};
        const states = Object.values(seen);
        return states.length === 2 && states.every((state) => state === 'UP');
      },
      { timeoutMs: 30_000 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}; HAProxy last saw ${JSON.stringify(seen)}`);
    });
  }

  afterAll(async () => {
    await haproxy?.stop();
    for (const instance of instances) {
      if (instance.child.exitCode === null) {
        instance.child.kill('SIGKILL');
        await instance.exited;
      }
    }
  });

  it('restarts one instance after the other under steady load without failing a request', async () => {
    const outcomes = new Map<string, number>();
    let loading = true;
    const client = async (member: number) => {
      while (loading) {
        const outcome = await fetch(`${haproxy?.baseUrl}/orders`, {
          headers: { ...bearer(userToken(member)) },
          signal: AbortSignal.timeout(10_000),
        }).then(
          async (response) => {
            await response.arrayBuffer();
            return String(response.status);
          },
          (error: Error & { cause?: { code?: string } }) => error.cause?.code ?? error.name,
        );
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      }
    };
    const load = Promise.all([1, 2, 3, 4].map(client));
    try {
      for (const index of [0, 1]) {
        const old = instances[index];
        const port = Number(new URL(old.baseUrl).port);
        old.child.kill('SIGTERM');
        expect(await old.exited).toBe(0);
        instances[index] = await start(port);
        await bothUp();
      }
    } finally {
      loading = false;
      await load;
    }
    const total = [...outcomes.values()].reduce((sum, count) => sum + count, 0);
    expect(total).toBeGreaterThan(100);
    expect(Object.fromEntries(outcomes)).toEqual({ 200: total });
  }, 120_000);
});
