import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createConnection, type Connection } from 'mysql2/promise';
import { startTestService, type ServiceProcess } from '../support/app/test-app';
import { freshMysqlDatabase, mysqlEnvironment, type MysqlTarget } from '../support/app/test-database';
import { adminToken } from '../support/app/tokens';
import { waitFor } from '../../launchers/wait-for';
import { bearer } from '../support/app/api-client';

/**
 * docs/API.md §10: on SIGTERM the service stops accepting, lets requests in flight
 * finish (up to SHUTDOWN_GRACE_MS), closes the pool and exits 0. A request is
 * held in flight by a table lock taken from another connection.
 */
describe('graceful shutdown', () => {
  let target: MysqlTarget;
  let locker: Connection;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    target = await freshMysqlDatabase('shutdown');
  }, 60_000);

  afterEach(async () => {
    await locker?.end().catch(() => undefined);
    service?.child.kill('SIGKILL');
  });

  const holdOrders = async () => {
    locker = await createConnection({
      host: target.host,
      port: target.port,
      user: target.user,
      password: target.password,
      database: target.database,
    });
    await locker.query('LOCK TABLES orders WRITE');
  };
  const list = (baseUrl: string) => fetch(`${baseUrl}/orders`, { headers: { ...bearer(adminToken()) } });

  /** The listing's statement is running on the server, blocked by the lock: the request is in flight. */
  const blockedOnTheLock = () =>
    waitFor('the listing to wait on the table lock', async () => {
      const [rows] = await locker.query(
        "SELECT COUNT(*) AS waiting FROM information_schema.PROCESSLIST WHERE STATE LIKE 'Waiting for table%' AND INFO LIKE '%orders%'",
      );
      return Number((rows as Array<{ waiting: number }>)[0].waiting) > 0;
    });

  /** The server no longer accepts connections. */
  const refusing = (baseUrl: string) =>
    waitFor('the listener to close', () =>
      fetch(`${baseUrl}/health/live`).then(
        () => false,
        () => true,
      ),
    );

  it('finishes the request in flight, refuses new connections, and exits 0', async () => {
    service = await startTestService({
      ...mysqlEnvironment(target),
      DB_QUERY_TIMEOUT_MS: '20000',
      SHUTDOWN_GRACE_MS: '10000',
    });
    const { baseUrl, child, exited } = service;
    await holdOrders();
    const inFlight = list(baseUrl);
    await blockedOnTheLock();
    child.kill('SIGTERM');
    await refusing(baseUrl);
    expect(child.exitCode).toBeNull();
    await locker.query('UNLOCK TABLES');
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(((await response.json()) as { totalElementCount: number }).totalElementCount).toBe(0);
    expect(await exited).toBe(0);
    expect(service.output()).toContain('SIGTERM received');
  }, 60_000);

  it('answers readiness 503 at once on SIGTERM and serves everything else for SHUTDOWN_DELAY_MS before draining', async () => {
    service = await startTestService({ ...mysqlEnvironment(target), SHUTDOWN_DELAY_MS: '1500' });
    const { baseUrl, child, exited } = service;
    expect((await fetch(`${baseUrl}/health/ready`)).status).toBe(200);
    const signalled = Date.now();
    child.kill('SIGTERM');
    const ready = await waitFor('readiness to answer 503', async () => {
      const response = await fetch(`${baseUrl}/health/ready`);
      return response.status === 503 ? response : undefined;
    });
    const notReadyAfterMs = Date.now() - signalled;
    expect(ready.headers.get('content-type')).toContain('application/problem+json');
    expect(ready.headers.get('retry-after')).toBe('1');
    expect(((await ready.json()) as { type: string }).type).toBe('/problems/shutting-down');
    // Still served: the balancer has not noticed yet.
    expect((await list(baseUrl)).status).toBe(200);
    expect((await fetch(`${baseUrl}/health/live`)).status).toBe(200);
    await refusing(baseUrl);
    const refusingAfterMs = Date.now() - signalled;
    expect(await exited).toBe(0);
    expect(notReadyAfterMs).toBeLessThan(500);
    expect(refusingAfterMs).toBeGreaterThanOrEqual(1500);
  }, 60_000);

  it('cuts a request still running when the grace period ends, and still exits 0', async () => {
    service = await startTestService({
      ...mysqlEnvironment(target),
      DB_QUERY_TIMEOUT_MS: '20000',
      SHUTDOWN_GRACE_MS: '1000',
    });
    const { baseUrl, child, exited } = service;
    await holdOrders();
    const inFlight = list(baseUrl);
    await blockedOnTheLock();
    const signalled = Date.now();
    child.kill('SIGTERM');
    await expect(inFlight).rejects.toThrow();
    expect(await exited).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(1000 + 2500);
    expect(service.output()).toContain('Grace period over');
  }, 30_000);
});
