import { describe, expect, it } from '@jest/globals';
import { startTestService } from '../support/app/test-app';
import { freshMysqlDatabase, mysqlEnvironment } from '../support/app/test-database';

const TOKEN = /eyJ[\w-]+\.[\w-]+\./;

/**
 * The banner with ready tokens is a development aid: printed only for the embedded demo database with the built-in
 * development secret, whose tokens anyone can sign anyway. Any other configuration never prints a usable token.
 */
describe('start-up banner', () => {
  it('prints the docs address and USER and ADMIN tokens on a fresh clone: no settings at all', async () => {
    // What `npm start` has with no .env: every variable of the test environment unset (empty counts as unset).
    const service = await startTestService({
      NODE_ENV: '',
      SQLITE_PATH: ':memory:',
      JWT_SECRET: '',
      JWT_ISSUER: '',
      JWT_AUDIENCE: '',
    });
    service.child.kill('SIGTERM');
    await service.exited;
    expect(service.output()).toContain('/docs');
    expect(service.output()).toMatch(/USER token[^\n]*\n[\w-]+\.[\w-]+\.[\w-]+/);
    expect(service.output()).toMatch(/ADMIN token[^\n]*\n[\w-]+\.[\w-]+\.[\w-]+/);
  }, 60_000);

  it.each([
    ['the embedded database', () => Promise.resolve({ SQLITE_PATH: ':memory:' })],
    ['MySQL', async () => mysqlEnvironment(await freshMysqlDatabase('banner_unset'))],
  ])(
    'prints no token with a secret of its own and NODE_ENV unset, on %s',
    async (_database, database) => {
      const service = await startTestService({ ...(await database()), NODE_ENV: '' });
      service.child.kill('SIGTERM');
      expect(await service.exited).toBe(0);
      expect(service.output()).toContain('/docs');
      expect(service.output()).not.toMatch(/token/i);
      expect(service.output()).not.toMatch(TOKEN);
    },
    60_000,
  );

  it('prints no banner and no token in production', async () => {
    const target = await freshMysqlDatabase('banner');
    const service = await startTestService({
      ...mysqlEnvironment(target),
      NODE_ENV: 'production',
      JWT_SECRET: 'a-production-secret-that-is-long-enough-0123',
      PAGE_LINK_SECRET: 'a-page-link-secret-that-is-long-enough-0123',
      ACCESS_RECORD_SEAL_KEY: Buffer.alloc(32, 2).toString('base64'),
    });
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
    expect(service.output()).not.toMatch(/token|Swagger UI/i);
    expect(service.output()).not.toMatch(TOKEN);
  }, 60_000);
});
