import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import jwt from 'jsonwebtoken';
import { TEST_AUDIENCE, TEST_ISSUER, TEST_JWT_SECRET } from '../support/app/test-app';

/** CONTRACT §2: the development token command, run as a developer runs it. */
function token(args: string[], environment: Record<string, string> = {}) {
  return spawnSync(process.execPath, ['-r', 'ts-node/register', 'src/cli/token.ts', ...args], {
    encoding: 'utf8',
    env: {
      ...process.env,
      NODE_ENV: 'development',
      JWT_SECRET: TEST_JWT_SECRET,
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
    const claims = jwt.verify(result.stdout.trim(), TEST_JWT_SECRET, {
      algorithms: ['HS256'],
      issuer: TEST_ISSUER,
      audience: TEST_AUDIENCE,
    }) as jwt.JwtPayload;
    expect(claims).toMatchObject({ sub: '42', role: 'ADMIN' });
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(7200);
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
