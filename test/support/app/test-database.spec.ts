import { describe, expect, it } from '@jest/globals';
import { assertTestDatabaseName, parseMysqlUrl } from './test-database';

/** The harness drops and recreates databases: it must never be pointed at a real one. */
describe('test database guard', () => {
  it.each(['orders', 'production', 'latest', 'contest', 'orders_testing'])('refuses the database %j', (name) => {
    expect(() => assertTestDatabaseName(name)).toThrow(/Refusing to run tests/);
    expect(() => parseMysqlUrl(`mysql://root@127.0.0.1:3306/${name}`)).toThrow(/Refusing to run tests/);
  });

  it.each(['test', 'orders_test', 'test_orders', 'orders_test_contract'])('accepts the database %j', (name) => {
    expect(parseMysqlUrl(`mysql://u:p%40ss@db.local:3307/${name}`)).toEqual({
      host: 'db.local',
      port: 3307,
      user: 'u',
      password: 'p@ss',
      database: name,
    });
  });
});
