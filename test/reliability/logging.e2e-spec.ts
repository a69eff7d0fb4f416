import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestService, type ServiceProcess } from '../support/app/test-app';
import { adminToken } from '../support/app/tokens';
import { waitFor } from '../../launchers/wait-for';
import { bearer } from '../support/app/api-client';

/** docs/API.md §10: logs are JSON lines carrying the request id; tokens and secrets never reach them. */
describe('request logs', () => {
  let service: ServiceProcess;

  beforeAll(async () => {
    service = await startTestService({ SQLITE_PATH: ':memory:' });
  }, 60_000);

  afterAll(async () => {
    service?.child.kill('SIGTERM');
    await service?.exited;
  });

  it('writes Nest’s start-up messages as JSON lines', async () => {
    const jsonLines = () =>
      service
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { msg?: string; context?: string });
    // Lines are buffered for up to a second before they are written.
    await waitFor('the start-up line', () => jsonLines().some((line) => line.context === 'NestApplication'));
    expect(jsonLines()).toContainEqual(
      expect.objectContaining({ msg: 'Nest application successfully started', context: 'NestApplication' }),
    );
  });

  it('writes one JSON line per request with its X-Request-Id, and no credential', async () => {
    const token = adminToken();
    const response = await fetch(`${service.baseUrl}/orders?size=1`, {
      headers: { ...bearer(token), Cookie: 'session=secret-cookie', 'X-Request-Id': 'log-test-42' },
    });
    expect(response.status).toBe(200);
    // Written asynchronously: the line arrives shortly after the response.
    const entry = await waitFor('the request’s log line', () =>
      service
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map(
          (line) =>
            JSON.parse(line) as { req?: { id?: string; url?: string }; res?: { statusCode?: number }; level: number },
        )
        .find((line) => line.req?.id === 'log-test-42'),
    );
    expect(entry).toMatchObject({
      req: { id: 'log-test-42', url: '/orders?size=1' },
      res: { statusCode: 200 },
      level: 30,
    });
    expect(service.output()).not.toContain(token);
    expect(service.output()).not.toContain(token.split('.')[2]);
    expect(service.output()).not.toContain('secret-cookie');
    expect(service.output()).not.toContain('test-secret-for-the-e2e-suites');
  });
});
