import { createConnection } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { toDatabaseConfig } from '../../../src/config/database.config';
import { validateEnvironment } from '../../../src/config/environment';
import { buildDataSourceOptions } from '../../../src/database/data-source-options';

export const TEST_MYSQL_URL_VARIABLE = 'TEST_MYSQL_URL';

/**
 * Tests drop and create databases; they refuse any whose name does not say
 * it is a test database, so a mistyped URL cannot wipe real data.
 */
export function assertTestDatabaseName(name: string): void {
  if (!/(^|_)test(_|$)/i.test(name)) {
    throw new Error(
      `Refusing to run tests against database "${name}": its name must contain "test" as a word (e.g. orders_test).`,
    );
  }
}

export interface MysqlTarget {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

export function parseMysqlUrl(url: string): MysqlTarget {
  const parsed = new URL(url);
  if (parsed.protocol !== 'mysql:')
    throw new Error(`${TEST_MYSQL_URL_VARIABLE} must be a mysql:// URL, got ${parsed.protocol}`);
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || 'orders_test';
  assertTestDatabaseName(database);
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 3306),
    user: decodeURIComponent(parsed.username || 'root'),
    password: decodeURIComponent(parsed.password),
    database,
  };
}

function mysqlTarget(): MysqlTarget {
  const url = process.env[TEST_MYSQL_URL_VARIABLE];
  if (!url) throw new Error(`${TEST_MYSQL_URL_VARIABLE} is not set; the e2e global setup provides it`);
  return parseMysqlUrl(url);
}

/** Environment variables that point the service at `target`. */
export function mysqlEnvironment(target: MysqlTarget): Record<string, string> {
  return {
    DB_TYPE: 'mysql',
    DB_HOST: target.host,
    DB_PORT: String(target.port),
    DB_USERNAME: target.user,
    DB_PASSWORD: target.password,
    DB_DATABASE: target.database,
  };
}

/** What the migration command connects with, to a test database: its environment validated as at start. */
export function maintenanceOptions(target: MysqlTarget, environment: Record<string, string> = {}) {
  return buildDataSourceOptions(
    toDatabaseConfig(validateEnvironment({ ...mysqlEnvironment(target), ...environment })),
    'maintenance',
  );
}

/**
 * A fresh, migrated database of its own for one test file, named after the
 * configured one (`orders_test` → `orders_test_orders_contract`), so files can run in parallel.
 */
export async function freshMysqlDatabase(
  suffix: string,
  { migrate = true }: { migrate?: boolean } = {},
): Promise<MysqlTarget> {
  const base = mysqlTarget();
  const target = { ...base, database: `${base.database}_${suffix}` };
  assertTestDatabaseName(target.database);
  const connection = await createConnection({
    host: base.host,
    port: base.port,
    user: base.user,
    password: base.password,
  });
  try {
    await connection.query(`DROP DATABASE IF EXISTS \`${target.database}\``);
    await connection.query(`CREATE DATABASE \`${target.database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  } finally {
    await connection.end();
  }
  if (!migrate) return target;
  const dataSource = new DataSource(maintenanceOptions(target));
  await dataSource.initialize();
  try {
    await dataSource.runMigrations();
  } finally {
    await dataSource.destroy();
  }
  return target;
}
