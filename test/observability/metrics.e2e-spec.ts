import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { seedDataset } from '../support/data/dataset';
import { freePort } from '../../launchers/mysql-server';
import { parseExposition, promtool, valueOf, type Sample } from '../support/assertions/prometheus';
import { TcpProxy } from '../support/faults/tcp-proxy';
import { freshMysqlDatabase, mysqlEnvironment } from '../support/app/test-database';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { adminToken, userToken } from '../support/app/tokens';
import { api } from '../support/app/api-client';

const REQUESTS = 'http_server_request_duration_seconds_count';
const STATEMENTS = 'db_client_operation_duration_seconds_count';

/**
 * docs/API.md §12: after a known sequence of requests, /metrics on METRICS_PORT
 * counts exactly what happened, per label set, with bounded labels.
 */
describe('Prometheus metrics', () => {
  let context: TestApp;
  let proxy: TcpProxy;
  let metricsUrl: string;
  let exposition: string;
  let samples: Sample[];

  beforeAll(async () => {
    const target = await freshMysqlDatabase('metrics');
    proxy = new TcpProxy(target.host, target.port);
    const port = await proxy.open();
    const metricsPort = await freePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    context = await startTestApp({
      ...mysqlEnvironment({ ...target, host: '127.0.0.1', port }),
      METRICS_PORT: String(metricsPort),
      RATE_LIMIT_PER_MINUTE: '4',
      DB_QUERY_TIMEOUT_MS: '1000',
    });
    await seedDataset(context.dataSource, 31);

    const list = (token?: string, query = '') => api(context.server, token).get(`/orders${query}`);
    const statuses: number[] = [];
    for (let index = 0; index < 3; index += 1) statuses.push((await list(adminToken(9000))).status);
    for (let index = 0; index < 2; index += 1) statuses.push((await list(userToken(1))).status);
    for (let index = 0; index < 2; index += 1) statuses.push((await list()).status);
    statuses.push((await list(adminToken(9001), '?size=0')).status);
    for (let index = 0; index < 5; index += 1) statuses.push((await list(userToken(2))).status);
    statuses.push((await request(context.server).get('/orders/..%2f..%2fetc%2fpasswd')).status);
    statuses.push((await request(context.server).get('/%3Cscript%3Ealert(1)%3C%2Fscript%3E?id=12345')).status);
    statuses.push((await request(context.server).get('/health/ready')).status);
    await proxy.cut();
    for (let index = 0; index < 2; index += 1) statuses.push((await list(adminToken(9002))).status);
    statuses.push((await request(context.server).get('/health/ready')).status);
    await proxy.open();
    // The sequence itself, so that a wrong count below is the metrics' fault and not the requests'.
    expect(statuses).toEqual([
      200, 200, 200, 200, 200, 401, 401, 400, 200, 200, 200, 200, 429, 404, 404, 200, 503, 503, 503,
    ]);

    exposition = await (await fetch(metricsUrl)).text();
    samples = parseExposition(exposition);
  }, 120_000);

  afterAll(async () => {
    await proxy?.cut();
    await context?.close();
  });

  it('counts requests by route pattern, status and variant decided by the role', () => {
    const count = (route: string, status: number, variant: string) =>
      valueOf(samples, REQUESTS, { method: 'GET', route, status_code: String(status), variant });
    expect(count('/orders', 200, 'admin')).toBe(3);
    expect(count('/orders', 200, 'user')).toBe(6);
    expect(count('/orders', 401, 'none')).toBe(2);
    expect(count('/orders', 400, 'admin')).toBe(1);
    expect(count('/orders', 429, 'user')).toBe(1);
    expect(count('unmatched', 404, 'none')).toBe(2);
    expect(count('/orders', 503, 'admin')).toBe(2);
    expect(count('/health/ready', 200, 'none')).toBe(1);
    expect(count('/health/ready', 503, 'none')).toBe(1);
    const all = samples.filter((sample) => sample.name === REQUESTS).reduce((sum, sample) => sum + sample.value, 0);
    expect(all).toBe(19);
  });

  it('counts rate-limited requests and 503s by reason, every reason present from the start', () => {
    expect(valueOf(samples, 'http_server_rate_limited_requests_total', { variant: 'user' })).toBe(1);
    expect(valueOf(samples, 'http_server_unavailable_responses_total', { reason: 'database' })).toBe(3);
    expect(exposition).toContain('http_server_unavailable_responses_total{reason="timeout"} 0');
    expect(exposition).toContain('http_server_unavailable_responses_total{reason="saturated"} 0');
  });

  it('times each statement where it runs, by kind and server', () => {
    // 9 listings answered 200 with full pages (the page, then its count and seats in one round trip) and 2 whose
    // page failed.
    expect(valueOf(samples, STATEMENTS, { statement: 'page', server: 'primary' })).toBe(11);
    expect(valueOf(samples, STATEMENTS, { statement: 'count+seats', server: 'primary' })).toBe(9);
    expect(valueOf(samples, STATEMENTS, { statement: 'count', server: 'primary' })).toBe(0);
    expect(valueOf(samples, STATEMENTS, { statement: 'seats', server: 'primary' })).toBe(0);
    // The background checks readiness answers from, one a second or so, however often readiness was asked.
    expect(valueOf(samples, STATEMENTS, { statement: 'ping', server: 'primary' })).toBeGreaterThan(0);
  });

  it('reports the pool per server, and Node’s own process metrics', () => {
    expect(
      samples.some((sample) => sample.name === 'db_client_connections_usage' && sample.labels.state === 'idle'),
    ).toBe(true);
    expect(valueOf(samples, 'db_client_connections_pending_requests', { server: 'primary' })).toBe(0);
    for (const name of ['nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes', 'process_cpu_seconds_total']) {
      expect(samples.some((sample) => sample.name === name)).toBe(true);
    }
  });

  it('never puts a URL, id or other client input in a label', () => {
    const routes = new Set(samples.filter((sample) => sample.name === REQUESTS).map((sample) => sample.labels.route));
    expect([...routes].sort()).toEqual(['/health/ready', '/orders', 'unmatched']);
    const labelValues = samples.flatMap((sample) => Object.values(sample.labels));
    expect(labelValues.filter((value) => /passwd|script|alert|12345|size|\?|%/.test(value))).toEqual([]);
  });

  it('passes promtool check metrics, but for prom-client’s own nodejs_* defaults', () => {
    const { output } = promtool(['check', 'metrics'], exposition);
    const findings = output.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('nodejs_'));
    expect(findings).toEqual([]);
  });

  it('serves nothing but /metrics, and on its own port only', async () => {
    expect((await fetch(metricsUrl.replace('/metrics', '/orders'))).status).toBe(404);
    expect((await request(context.server).get('/metrics')).status).toBe(404);
  });
});
