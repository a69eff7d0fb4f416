import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request as httpRequest } from 'node:http';
import { startHaproxy, type Haproxy } from '../../launchers/haproxy';
import { waitFor } from '../../launchers/wait-for';
import { startTestService, type ServiceProcess } from '../support/app/test-app';
import { userToken } from '../support/app/tokens';
import { bearer } from '../support/app/api-client';

const LIMIT = 5;

/**
 * The shipped HAProxy configuration in front of an instance that trusts it (TRUST_PROXY): each client is known by
 * its own address, from its own source address on the loopback range, as clients of a real balancer are.
 */
describe('behind the shipped HAProxy', () => {
  let service: ServiceProcess;
  let haproxy: Haproxy;

  beforeAll(async () => {
    service = await startTestService({
      SQLITE_PATH: ':memory:',
      RATE_LIMIT_PER_MINUTE: String(LIMIT),
      TRUST_PROXY: '127.0.0.1',
    });
    const instance = new URL(service.baseUrl).host;
    haproxy = await startHaproxy([instance, instance]);
  }, 60_000);

  afterAll(async () => {
    await haproxy?.stop();
    if (service) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
  });

  /** GET /orders through HAProxy from `client`, a source address of the loopback range. */
  const listFrom = (client: string, headers: Record<string, string> = {}): Promise<number> =>
    new Promise((resolve, reject) => {
      const call = httpRequest(`${haproxy.baseUrl}/orders`, { localAddress: client, headers }, (response) => {
        response.resume();
        response.once('end', () => resolve(response.statusCode ?? 0));
      });
      call.once('error', reject);
      call.end();
    });

  it('limits a client flooding bad tokens without limiting the next client, whatever it forges', async () => {
    const forged = { ...bearer(`${userToken(5).slice(0, -4)}AAAA`), 'X-Forwarded-For': '198.51.100.7' };
    const flood: number[] = [];
    for (let index = 0; index < 2 * LIMIT; index += 1) flood.push(await listFrom('127.0.0.2', forged));
    expect(flood).toEqual([...Array<number>(LIMIT).fill(401), ...Array<number>(LIMIT).fill(429)]);
    // Another client is counted apart; the address the first one forged is not where its budget went.
    expect(await listFrom('127.0.0.3')).toBe(401);
    expect(await listFrom('127.0.0.2', { 'X-Forwarded-For': '203.0.113.50' })).toBe(429);
    // The request log names the client too, not the proxy; lines are written asynchronously.
    await waitFor('the log line of the second client', () => /"remoteAddress":"127\.0\.0\.3"/.test(service.output()));
  }, 60_000);
});
