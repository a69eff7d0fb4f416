import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
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
});
