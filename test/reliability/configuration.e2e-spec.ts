import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { BASE_TEST_ENVIRONMENT } from '../support/app/test-app';

/** CONTRACT §8: invalid configuration stops the process at start, with a message that names the variable. */
describe('starting with invalid configuration', () => {
  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ DB_TYPE: 'postgres' }, 'DB_TYPE'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET'],
    [{ NODE_ENV: 'production' }, 'DB_TYPE'],
  ])(
    'exits non-zero with %j, naming %s and printing no stack trace',
    (environment, variable) => {
      const result = spawnSync(process.execPath, ['-r', 'ts-node/register', 'src/main.ts'], {
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...process.env, ...BASE_TEST_ENVIRONMENT, LOG_LEVEL: 'info', ...environment },
      });
      expect(result.signal).toBeNull();
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('Invalid configuration');
      expect(result.stderr).toMatch(new RegExp(`^\\s+- ${variable}:`, 'm'));
      expect(`${result.stdout}${result.stderr}`).not.toMatch(/^\s+at /m);
    },
    60_000,
  );
});
