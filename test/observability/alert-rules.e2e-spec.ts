import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { freePort } from '../../launchers/mysql-server';
import { startThrowawayPrometheus, type PrometheusAlert } from '../../launchers/prometheus-server';
import { waitFor } from '../../launchers/wait-for';
import { startTestApp } from '../support/app/test-app';
import { promtool } from '../support/assertions/prometheus';

const RULES = 'deploy/prometheus/alerts.yml';

/** The alert rules an on-call engineer gets (docs/OPERATIONS.md), valid and unit-tested firing and not firing. */
describe('Prometheus alert rules', () => {
  it('are valid rules', () => {
    const { status, output } = promtool(['check', 'rules', RULES]);
    expect(output).toContain('SUCCESS');
    expect(status).toBe(0);
  });

  it('pass their unit tests (deploy/prometheus/alerts.test.yml)', () => {
    const { status, output } = promtool(['test', 'rules', 'deploy/prometheus/alerts.test.yml']);
    expect(output).not.toContain('FAILED');
    expect(status).toBe(0);
  });

  it('each have a section of the runbook', () => {
    const runbook = readFileSync('docs/OPERATIONS.md', 'utf8');
    const alerts = [...readFileSync(RULES, 'utf8').matchAll(/- alert: (\w+)/g)].map((match) => match[1]);
    expect(alerts.length).toBeGreaterThan(0);
    for (const alert of alerts) {
      expect(runbook).toContain(`### ${alert}`);
      expect(readFileSync('deploy/prometheus/alerts.test.yml', 'utf8')).toContain(`alertname: ${alert}`);
    }
  });

  it('page on a real Prometheus when the only instance stops: the instance down, then none left', async () => {
    // Minutes become seconds: the rules as shipped, with every `for:` 60 times shorter.
    const scaled = readFileSync(RULES, 'utf8').replace(/for: (\d+)m/g, 'for: $1s');
    const metricsPort = await freePort();
    const app = await startTestApp({ METRICS_PORT: String(metricsPort) });
    let running = true;
    const prometheus = await startThrowawayPrometheus('orders', [`127.0.0.1:${metricsPort}`], scaled);
    const firing = async (name: string): Promise<PrometheusAlert | undefined> =>
      (await prometheus.alerts()).find((alert) => alert.labels.alertname === name && alert.state === 'firing');
    try {
      await waitFor('the instance to be scraped', () => prometheus.targetsUp('orders'), { timeoutMs: 20_000 });
      // Scraped and up for longer than either rule's (scaled) `for:`: neither is even pending.
      await waitFor('three successful scrapes', async () => {
        const series = await prometheus.query('count_over_time(up{job="orders"}[10s]) >= 3 and up{job="orders"} == 1');
        return series.length > 0;
      });
      expect(await prometheus.alerts()).toEqual([]);

      await app.close();
      running = false;
      const down = await waitFor('OrdersInstanceDown to fire', () => firing('OrdersInstanceDown'), {
        timeoutMs: 30_000,
      });
      expect(down.labels).toMatchObject({ job: 'orders', instance: `127.0.0.1:${metricsPort}`, severity: 'warning' });
      const none = await waitFor('OrdersNoInstance to fire', () => firing('OrdersNoInstance'), { timeoutMs: 30_000 });
      expect(none.labels.severity).toBe('page');
    } finally {
      await prometheus.stop();
      if (running) await app.close();
    }
  }, 90_000);
});
