import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createConnection } from 'mysql2/promise';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { CHECK_INTERVAL_MS } from '../../src/database/database-health-monitor';
import { PROBE_TIMEOUT_MS } from '../../src/database/side-connection';
import { startThrowawayMysql, type ThrowawayMysql } from '../../launchers/mysql-server';
import { waitFor } from '../../launchers/wait-for';
import { expectProblem } from '../support/assertions/problem';
import { maintenanceOptions, mysqlEnvironment, type MysqlTarget, parseMysqlUrl } from '../support/app/test-database';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { adminToken } from '../support/app/tokens';
import { api } from '../support/app/api-client';

const QUERY_TIMEOUT_MS = 1000;
/** docs/API.md §10: a failing request answers within DB_QUERY_TIMEOUT_MS plus one second. */
const ANSWER_WITHIN_MS = QUERY_TIMEOUT_MS + 1000;
/** …and the service answers 200 again within 10 s of the database's return. */
const RECOVER_WITHIN_MS = 10_000;

/**
 * Faults injected into a MariaDB server of this suite's own (killed, restarted,
 * paused, resumed), never into a server that other suites or people share.
 */
describe('database faults on a real MariaDB', () => {
  let server: ThrowawayMysql;
  let context: TestApp;

  beforeAll(async () => {
    server = await startThrowawayMysql();
    const target: MysqlTarget = parseMysqlUrl(server.url);
    const admin = await createConnection({ host: target.host, port: target.port, user: target.user });
    await admin.query(`CREATE DATABASE \`${target.database}\``);
    await admin.end();
    const migrator = new DataSource(maintenanceOptions(target));
    await migrator.initialize();
    await migrator.runMigrations();
    await migrator.destroy();
    context = await startTestApp({
      ...mysqlEnvironment(target),
      DB_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS),
      DB_POOL_SIZE: '4',
    });
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await server?.stop();
  }, 30_000);

  const list = () => api(context.server, adminToken()).get('/orders');
  const ready = () => request(context.server).get('/health/ready');

  /** Sends `count` requests at once and checks each is a timely 503 problem with Retry-After. */
  async function expectTimely503s(count: number): Promise<void> {
    const started = Date.now();
    const responses = await Promise.all(Array.from({ length: count }, () => list()));
    const elapsed = Date.now() - started;
    for (const response of responses) {
      expectProblem(response, 503);
      expect(response.headers['retry-after']).toBe('5');
    }
    expect(elapsed).toBeLessThan(ANSWER_WITHIN_MS);
  }

  async function expectRecovery(): Promise<number> {
    const started = Date.now();
    let status = 0;
    while (status !== 200 && Date.now() - started < RECOVER_WITHIN_MS) {
      status = (await list()).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
    // Readiness answers from the background checks, about one a second: the next one finds the server back.
    await waitFor('readiness to answer 200 again', async () => (await ready()).status === 200, {
      timeoutMs: Math.max(0, RECOVER_WITHIN_MS - (Date.now() - started)),
    });
    return Date.now() - started;
  }

  it('answers 200 and is ready while the database runs', async () => {
    expect((await list()).status).toBe(200);
    expect((await ready()).status).toBe(200);
  });

  it('answers 503 in time when the server is killed, stays up, reports not ready, and answers 200 once it is back', async () => {
    await server.kill();
    try {
      await expectTimely503s(8);
      expectProblem(await ready(), 503);
      expect((await request(context.server).get('/health/live')).status).toBe(200);
    } finally {
      await server.restart();
    }
    // Without a restart of the service.
    await expectRecovery();
  }, 30_000);

  it('answers 503 in time while the server is paused (SIGSTOP), the query-timeout path, and 200 once it resumes', async () => {
    await server.pause();
    try {
      await expectTimely503s(8);
      // Readiness answers at once, from the background check, which gives up on a silent server after its timeout.
      const notReady = await waitFor(
        'readiness to report the paused server',
        async () => {
          const response = await ready();
          return response.status !== 200 && response;
        },
        { timeoutMs: CHECK_INTERVAL_MS + PROBE_TIMEOUT_MS },
      );
      expectProblem(notReady, 503);
    } finally {
      server.signal('SIGCONT');
    }
    await expectRecovery();
  }, 30_000);

  it('keeps answering 503, not hanging, when more requests arrive than the pool can queue', async () => {
    // The service paces its wait list by how long recent requests held their connections, and those of an earlier
    // pause held theirs for the whole deadline. A healthy database first, as before any outage, so that the burst
    // queues at a healthy pace rather than being refused at once, before the database has shown it is silent.
    for (let warmUp = 0; warmUp < 20; warmUp += 1) expect((await list()).status).toBe(200);
    await server.pause();
    try {
      // 4 connections whose statements are never answered, the rest queued behind them: once a statement has waited
      // half the deadline with nothing back from the server, every refusal names the database.
      await expectTimely503s(40);
    } finally {
      server.signal('SIGCONT');
    }
    await expectRecovery();
  }, 30_000);
});
