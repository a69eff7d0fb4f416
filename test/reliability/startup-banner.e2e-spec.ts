import { describe, expect, it } from '@jest/globals';
import { startTestService } from '../support/app/test-app';
import { freshMysqlDatabase, mysqlEnvironment } from '../support/app/test-database';

/** The banner with ready tokens is a development aid; production must never print a usable token. */
describe('start-up banner', () => {
  it('prints the docs address and USER and ADMIN tokens in development', async () => {
    const service = await startTestService({ NODE_ENV: 'development', SQLITE_PATH: ':memory:' });
    service.child.kill('SIGTERM');
    await service.exited;
    expect(service.output()).toContain('/docs');
    expect(service.output()).toMatch(/USER token[^\n]*\n[\w-]+\.[\w-]+\.[\w-]+/);
    expect(service.output()).toMatch(/ADMIN token[^\n]*\n[\w-]+\.[\w-]+\.[\w-]+/);
  }, 60_000);

  it('prints no banner and no token in production', async () => {
    const target = await freshMysqlDatabase('banner');
    const service = await startTestService({
      ...mysqlEnvironment(target),
      NODE_ENV: 'production',
      JWT_SECRET: 'a-production-secret-that-is-long-enough-0123',
      PAGE_LINK_SECRET: 'a-page-link-secret-that-is-long-enough-0123',
    });
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
    expect(service.output()).not.toMatch(/token|Swagger UI/i);
    expect(service.output()).not.toMatch(/eyJ[\w-]+\.[\w-]+\./);
  }, 60_000);
});
