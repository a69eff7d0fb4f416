import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { expectProblem } from '../support/assertions/problem';
import { TcpProxy } from '../support/faults/tcp-proxy';
import { freshMysqlDatabase, mysqlEnvironment } from '../support/app/test-database';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { adminToken } from '../support/app/tokens';
import { waitFor } from '../../launchers/wait-for';
import { api } from '../support/app/api-client';

/** docs/API.md §6: a database that cannot answer is a 503 with Retry-After, never its own error text. */
describe('GET /orders while MySQL is unreachable', () => {
  let context: TestApp;
  let proxy: TcpProxy;

  beforeAll(async () => {
    const target = await freshMysqlDatabase('outage');
    proxy = new TcpProxy(target.host, target.port);
    const port = await proxy.open();
    context = await startTestApp({
      ...mysqlEnvironment({ ...target, host: '127.0.0.1', port }),
      DB_QUERY_TIMEOUT_MS: '1000',
    });
  }, 60_000);

  afterAll(async () => {
    await proxy?.cut();
    await context?.close();
  });

  const list = () => api(context.server, adminToken()).get('/orders');

  it('answers 200 while the database is there', async () => {
    expect((await list()).status).toBe(200);
  });

  it('answers 503 problem+json with Retry-After, and no driver text, once it is gone; readiness the same', async () => {
    await proxy.cut();
    try {
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const response = await list();
        const body = expectProblem(response, 503);
        expect(response.headers['retry-after']).toBe('5');
        expect(body.type).toBe('/problems/database-unavailable');
      }
      const readiness = await request(context.server).get('/health/ready');
      expect(expectProblem(readiness, 503).type).toBe('/problems/database-unavailable');
      expect(readiness.headers['retry-after']).toBe('5');
    } finally {
      await proxy.open();
    }
  });

  it('answers 200 again when the database returns, without a restart', async () => {
    await proxy.cut();
    expectProblem(await list(), 503);
    await proxy.open();
    await waitFor('the listing to answer 200 again', async () => (await list()).status === 200);
  });
});

describe('GET /orders when the embedded database fails', () => {
  let context: TestApp;

  // Each test breaks the database its own way, so each gets an application of its own.
  beforeEach(async () => {
    context = await startTestApp({});
  });

  afterEach(async () => {
    await context?.close();
  });

  it('answers a problem without the engine’s words', async () => {
    await context.dataSource.query('DROP TABLE order_seats');
    await context.dataSource.query('DROP TABLE orders');
    const response = await api(context.server, adminToken()).get('/orders');
    expectProblem(response, 500);
    expect(response.text).not.toMatch(/no such table/i);
  });

  it('answers readiness 503 with the database-unavailable problem and Retry-After once it is closed', async () => {
    expect((await request(context.server).get('/health/ready')).status).toBe(200);
    await context.dataSource.destroy();
    const response = await request(context.server).get('/health/ready');
    expect(expectProblem(response, 503).type).toBe('/problems/database-unavailable');
    expect(response.headers['retry-after']).toBe('5');
  });
});
