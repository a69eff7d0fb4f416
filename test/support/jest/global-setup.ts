import { spawnSync } from 'node:child_process';
import { createConnection } from 'mysql2/promise';
import { startThrowawayMysql, type ThrowawayMysql } from '../../../launchers/mysql-server';
import { parseMysqlUrl, TEST_MYSQL_URL_VARIABLE } from '../app/test-database';

declare global {
  var throwawayMysql: ThrowawayMysql | undefined;
}

/** The suites that run the service as production starts it (`start:prod`) need the build; made once per run. */
function buildService(): void {
  const build = spawnSync(process.execPath, ['node_modules/@nestjs/cli/bin/nest.js', 'build'], {
    encoding: 'utf8',
    timeout: 180_000,
  });
  if (build.status !== 0) throw new Error(`nest build failed:\n${build.stdout}${build.stderr}`);
}

/**
 * docs/API.md §9: the MySQL suites use TEST_MYSQL_URL when set, otherwise a
 * throw-away server started here; with neither they fail, never skip.
 */
export default async function globalSetup(): Promise<void> {
  buildService();
  if (!process.env[TEST_MYSQL_URL_VARIABLE]) {
    const server = await startThrowawayMysql();
    globalThis.throwawayMysql = server;
    process.env[TEST_MYSQL_URL_VARIABLE] = server.url;
    console.log(`\nStarted a throw-away MySQL server for the tests: ${server.url}`);
  }
  const target = parseMysqlUrl(process.env[TEST_MYSQL_URL_VARIABLE] ?? '');
  const connection = await createConnection({
    host: target.host,
    port: target.port,
    user: target.user,
    password: target.password,
  });
  const [rows] = await connection.query('SELECT VERSION() AS version');
  await connection.end();
  console.log(
    `MySQL for the tests: ${(rows as Array<{ version: string }>)[0].version} at ${target.host}:${target.port}`,
  );
}
