import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { Semaphore } from 'redis-semaphore';
import { startThrowawayRedis, type ThrowawayRedis } from '../../launchers/redis-server';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { userToken } from '../support/app/tokens';
import { waitFor } from '../../launchers/wait-for';
import { api } from '../support/app/api-client';

const LIMIT = 5;

/**
 * docs/API.md §11: with REDIS_URL a caller's limit holds across instances
 * together; with Redis gone each instance counts alone and nothing answers
 * 5xx; when Redis returns, sharing resumes by itself.
 */
describe('rate limits shared through Redis', () => {
  let redis: ThrowawayRedis;
  let instances: TestApp[];

  beforeAll(async () => {
    redis = await startThrowawayRedis();
    const environment = { REDIS_URL: redis.url, RATE_LIMIT_PER_MINUTE: String(LIMIT) };
    instances = [await startTestApp(environment), await startTestApp(environment)];
    // An instance serves before its Redis client is ready; the first test needs both counting in Redis.
    await untilBothCountInRedis(1000);
  }, 60_000);

  afterAll(async () => {
    for (const instance of instances ?? []) await instance.close();
    await redis?.kill();
  });

  const list = (instance: TestApp, member: number) =>
    api(instance.server, userToken(member))
      .get('/orders')
      .then((response) => response.status);

  /** One request after another, alternating between the two instances. */
  async function alternate(member: number, count: number): Promise<number[]> {
    const statuses: number[] = [];
    for (let index = 0; index < count; index += 1) statuses.push(await list(instances[index % 2], member));
    return statuses;
  }

  /**
   * Requests as fresh members until one is counted in Redis by both instances:
   * both are connected to it. Until then an instance counts on its own, as it
   * should while Redis is away.
   */
  async function untilBothCountInRedis(lastMemberUsed: number): Promise<void> {
    const store = new Redis(redis.url);
    try {
      let probe = lastMemberUsed;
      await waitFor('both instances to count in Redis', async () => {
        probe += 1;
        await list(instances[0], probe);
        await list(instances[1], probe);
        return (await store.get(`orders-rate-limit:member:${probe}`)) === '2';
      });
    } finally {
      store.disconnect();
    }
  }

  it('counts a caller’s requests on both instances against one limit', async () => {
    expect(await alternate(1, LIMIT + 2)).toEqual([...Array<number>(LIMIT).fill(200), 429, 429]);
  });

  it('shares each caller’s running exports: one held elsewhere in the fleet is refused on both instances', async () => {
    const store = new Redis(redis.url);
    // What another instance running member 50's export holds, as ExportSlots writes it.
    const elsewhere = new Semaphore(store, 'orders-exports:USER:50', 1, { acquireAttemptsLimit: 1 });
    const exportAs = (instance: TestApp) =>
      api(instance.server, userToken(50))
        .get('/orders/export.csv')
        .then((response) => response.status);
    try {
      expect(await elsewhere.tryAcquire()).toBe(true);
      expect([await exportAs(instances[0]), await exportAs(instances[1])]).toEqual([429, 429]);
      await elsewhere.release();
      expect([await exportAs(instances[0]), await exportAs(instances[1])]).toEqual([200, 200]);
      // Each export gives its slot back when it ends: none is left in Redis.
      await waitFor(
        'the exports’ slots to be given back',
        async () => (await store.zcard('orders-exports:USER:50')) === 0,
      );
    } finally {
      store.disconnect();
    }
  });

  it('counts on each instance alone while Redis is down, and never answers 5xx', async () => {
    await redis.kill();
    try {
      const statuses = await alternate(2, 2 * LIMIT + 2);
      expect(statuses.filter((status) => status >= 500)).toEqual([]);
      // Each instance lets the member through LIMIT times on its own.
      expect(statuses).toEqual([...Array<number>(2 * LIMIT).fill(200), 429, 429]);
    } finally {
      await redis.restart();
    }
  }, 30_000);

  it('shares the count again once Redis is back, without a restart', async () => {
    await redis.kill();
    await redis.restart();
    await untilBothCountInRedis(100);
    expect(await alternate(3, LIMIT + 1)).toEqual([...Array<number>(LIMIT).fill(200), 429]);
  }, 30_000);
});
