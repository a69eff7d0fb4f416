import 'reflect-metadata';
import { Session } from 'node:inspector/promises';
import { relative } from 'node:path';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';

/**
 * The src files and functions a member's page runs, from V8's precise coverage of one request to the built service
 * on the embedded database, after one request to warm it: `npm run bench:path`.
 */
async function main(): Promise<void> {
  // The embedded database unless the environment names one (DB_TYPE=mysql and its DB_* variables).
  process.env.DB_TYPE ||= 'sqlite';
  process.env.SQLITE_PATH = ':memory:';
  process.env.JWT_SECRET ||= 'request-path-secret-of-at-least-32-bytes';
  process.env.LOG_LEVEL = 'warn';
  const dist = `${process.cwd()}/dist`;
  const { AppModule } = (await import(`${dist}/app.module.js`)) as typeof import('../src/app.module');
  const { APP_OPTIONS, configureApp } = (await import(
    `${dist}/bootstrap/configure-app.js`
  )) as typeof import('../src/bootstrap/configure-app');
  const { createHttpAdapter } = (await import(
    `${dist}/bootstrap/http-adapter.js`
  )) as typeof import('../src/bootstrap/http-adapter');
  const { signDevelopmentToken } = (await import(
    `${dist}/auth/development-token.js`
  )) as typeof import('../src/auth/development-token');
  const { AUTH_CONFIG } = (await import(
    `${dist}/config/config.module.js`
  )) as typeof import('../src/config/config.module');
  const { DEMO_MEMBER_ID } = (await import(
    `${dist}/orders/seeding/demo-data.js`
  )) as typeof import('../src/orders/seeding/demo-data');

  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(), createHttpAdapter(), APP_OPTIONS);
  configureApp(app);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  const token = signDevelopmentToken(app.get(AUTH_CONFIG), { sub: DEMO_MEMBER_ID, role: 'USER' as never });
  const request = () =>
    app.inject({ method: 'GET', url: '/orders?size=5&page=2', headers: { authorization: `Bearer ${token}` } });
  if ((await request()).statusCode !== 200) throw new Error('the warm-up request failed');

  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  await session.post('Profiler.takePreciseCoverage');
  const answer = await request();
  const { result } = await session.post('Profiler.takePreciseCoverage');
  await session.post('Profiler.stopPreciseCoverage');
  session.disconnect();
  await app.close();
  if (answer.statusCode !== 200) throw new Error(`the measured request answered ${answer.statusCode}`);

  const byFile = new Map<string, string[]>();
  for (const script of result) {
    if (!script.url.startsWith(`file://${dist}/`)) continue;
    const file = relative(dist, new URL(script.url).pathname).replace(/\.js$/, '.ts');
    const called = script.functions
      .filter((fn) => fn.ranges[0].count > 0)
      .map((fn) => `${fn.functionName || '(anonymous)'}×${fn.ranges[0].count}`);
    if (called.length > 0) byFile.set(file, called);
  }
  const files = [...byFile.keys()].sort();
  for (const file of files) console.log(`${file}: ${byFile.get(file)!.join(', ')}`);
  const folders = new Map<string, number>();
  for (const file of files) folders.set(file.split('/')[0], (folders.get(file.split('/')[0]) ?? 0) + 1);
  console.log(`\n${files.length} files: ${[...folders].map(([folder, count]) => `${folder} ${count}`).join(', ')}`);
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
