import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import jwt from 'jsonwebtoken';
import { DEVELOPMENT_JWT_SECRET } from '../../src/config/jwt-verification';
import { TEST_AUDIENCE, TEST_ISSUER, TEST_JWT_SECRET } from '../support/app/test-app';

/**
 * The development token command, run as a developer runs it: on the embedded database with the built-in
 * development secret (an empty variable counts as unset), the only configuration it signs for.
 */
function token(args: string[], environment: Record<string, string> = {}) {
  return spawnSync(process.execPath, ['-r', 'ts-node/register', 'src/cli/token.ts', ...args], {
    encoding: 'utf8',
    env: {
      ...process.env,
      NODE_ENV: '',
      DB_TYPE: 'sqlite',
      JWT_SECRET: '',
      JWT_PUBLIC_KEY: '',
      JWT_JWKS_URI: '',
      JWT_ISSUER: TEST_ISSUER,
      JWT_AUDIENCE: TEST_AUDIENCE,
      ...environment,
    },
  });
}

describe('npm run token', () => {
  it('prints a token the service accepts, with the given member, role and lifetime', () => {
    const result = token(['--sub', '42', '--role', 'ADMIN', '--exp', '2h']);
    expect(result.status).toBe(0);
    const claims = jwt.verify(result.stdout.trim(), DEVELOPMENT_JWT_SECRET, {
      algorithms: ['HS256'],
      issuer: TEST_ISSUER,
      audience: TEST_AUDIENCE,
    }) as jwt.JwtPayload;
    expect(claims).toMatchObject({ sub: '42', role: 'ADMIN' });
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(7200);
  });

  it('refuses to sign for a secret of the deployment, whatever NODE_ENV says', () => {
    for (const nodeEnv of ['', 'development', 'test']) {
      const result = token(['--sub', '1', '--role', 'ADMIN'], { NODE_ENV: nodeEnv, JWT_SECRET: TEST_JWT_SECRET });
      expect(result.status).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('Refusing to sign tokens');
    }
  });

  it('refuses to sign for MySQL, where the development secret itself is refused', () => {
    const result = token(['--sub', '1', '--role', 'ADMIN'], { DB_TYPE: 'mysql' });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/JWT_SECRET: the built-in development secret only serves the embedded database/);
  });

  it('refuses to run with NODE_ENV=production', () => {
    const result = token(['--sub', '1', '--role', 'USER'], { NODE_ENV: 'production' });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Refusing to sign tokens with NODE_ENV=production');
  });

  it.each([
    [['--sub', '0', '--role', 'USER'], '--sub'],
    [['--sub', '7', '--role', 'admin'], '--role'],
    [['--sub', '7', '--role', 'USER', '--exp', 'forever'], '--exp'],
  ])('refuses %j, naming the option', (args, option) => {
    const result = token(args);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(option);
  });
});
