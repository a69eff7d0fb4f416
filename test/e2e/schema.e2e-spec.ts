import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { freshMysqlDatabase, maintenanceOptions } from '../support/app/test-database';

/** docs/API.md §7, read back from the database the migrations built. */
describe('schema on MySQL', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    const target = await freshMysqlDatabase('schema');
    dataSource = new DataSource(maintenanceOptions(target));
    await dataSource.initialize();
  }, 60_000);

  afterAll(async () => {
    await dataSource?.destroy();
  });

  const columns = async (table: string) =>
    (
      await dataSource.query<Array<{ name: string; type: string; nullable: string; extra: string }>>(
        `SELECT COLUMN_NAME AS name, COLUMN_TYPE AS type, IS_NULLABLE AS nullable, EXTRA AS extra
           FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`,
        [table],
      )
    ).map(({ name, type, nullable, extra }) => [name, type.replace(/bigint\(20\)/, 'bigint'), nullable, extra]);

  it('has the orders columns of the contract', async () => {
    expect(await columns('orders')).toEqual([
      ['id', 'bigint unsigned', 'NO', 'auto_increment'],
      ['user_id', 'bigint unsigned', 'NO', ''],
      ['concert_id', 'bigint unsigned', 'NO', ''],
      ['total_price', 'decimal(12,2)', 'NO', ''],
      ['status', 'varchar(32)', 'NO', ''],
      ['created_at', 'datetime(3)', 'NO', ''],
      ['updated_at', 'datetime(3)', 'NO', ''],
    ]);
  });

  it('has the order_seats columns, primary key and foreign key of the contract', async () => {
    expect(await columns('order_seats')).toEqual([
      ['order_id', 'bigint unsigned', 'NO', ''],
      ['seat_price_id', 'bigint unsigned', 'NO', ''],
      ['price', 'decimal(12,2)', 'NO', ''],
    ]);
    const keys = await dataSource.query<Array<{ name: string; column: string; referenced: string | null }>>(
      `SELECT CONSTRAINT_NAME AS name, COLUMN_NAME AS \`column\`, REFERENCED_TABLE_NAME AS referenced
         FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'order_seats'
        ORDER BY CONSTRAINT_NAME, ORDINAL_POSITION`,
    );
    expect(keys).toEqual([
      { name: 'fk_order_seats_order', column: 'order_id', referenced: 'orders' },
      { name: 'PRIMARY', column: 'order_id', referenced: null },
      { name: 'PRIMARY', column: 'seat_price_id', referenced: null },
    ]);
  });

  it('keeps only the indexes that pay for their cost on writes: each filter followed by created_at', async () => {
    const indexes = await dataSource.query<Array<{ name: string; columns: string }>>(
      `SELECT INDEX_NAME AS name, GROUP_CONCAT(CONCAT(COLUMN_NAME, IF(COLLATION = 'D', ' DESC', '')) ORDER BY SEQ_IN_INDEX) AS columns
         FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'orders'
        GROUP BY INDEX_NAME ORDER BY INDEX_NAME`,
    );
    expect(indexes).toEqual([
      { name: 'idx_orders_concert_created', columns: 'concert_id,created_at' },
      { name: 'idx_orders_created', columns: 'created_at' },
      { name: 'idx_orders_user_created', columns: 'user_id,created_at' },
      { name: 'PRIMARY', columns: 'id' },
    ]);
  });

  it('counts through triggers that only append rows of their own, never update a shared one', async () => {
    const triggers = await dataSource.query<Array<{ name: string; statement: string }>>(
      `SELECT TRIGGER_NAME AS name, ACTION_STATEMENT AS statement FROM information_schema.TRIGGERS
        WHERE TRIGGER_SCHEMA = DATABASE() AND EVENT_OBJECT_TABLE = 'orders' ORDER BY TRIGGER_NAME`,
    );
    expect(triggers.map(({ name }) => name)).toEqual([
      'orders_count_delete',
      'orders_count_insert',
      'orders_count_update',
    ]);
    for (const { statement } of triggers) {
      expect(statement).toMatch(/INSERT INTO order_count_changes/);
      expect(statement).not.toMatch(/UPDATE order_daily_counts|ON DUPLICATE KEY/);
    }
    // A status change within the order's day is one row of its own, not two changes, and carries the order whose id
    // and concert widen the bounds of the status it reached (docs/adr/0020), as an order placed does.
    expect(triggers.find(({ name }) => name === 'orders_count_update')?.statement).toMatch(
      /INSERT INTO order_count_moves \(day, from_status, to_status, order_id, concert_id\)/,
    );
    expect(triggers.find(({ name }) => name === 'orders_count_insert')?.statement).toMatch(
      /VALUES \(DATE\(NEW\.created_at\), NEW\.status, 1, NEW\.id, NEW\.concert_id\)/,
    );
  });

  it('matches the entities, so migration:generate has nothing to add', async () => {
    const pending = await dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((query) => query.query)).toEqual([]);
  });

  it('has no pending migration', async () => {
    expect(await dataSource.showMigrations()).toBe(false);
  });
});

describe('schema on the embedded database', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = new DataSource(buildDataSourceOptions({ type: 'sqlite', path: ':memory:' }));
    await dataSource.initialize();
    await dataSource.runMigrations();
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  it('mirrors the contract’s tables and columns', async () => {
    const columns = async (table: string) =>
      (
        await dataSource.query<Array<{ name: string; type: string; notnull: number; pk: number }>>(
          `PRAGMA table_info(${table})`,
        )
      ).map(({ name, type, notnull, pk }) => [name, type, notnull, pk]);
    expect(await columns('orders')).toEqual([
      ['id', 'INTEGER', 1, 1],
      ['user_id', 'BIGINT', 1, 0],
      ['concert_id', 'BIGINT', 1, 0],
      ['total_price', 'DECIMAL(12,2)', 1, 0],
      ['status', 'VARCHAR(32)', 1, 0],
      ['created_at', 'DATETIME', 1, 0],
      ['updated_at', 'DATETIME', 1, 0],
    ]);
    expect(await columns('order_seats')).toEqual([
      ['order_id', 'BIGINT', 1, 1],
      ['seat_price_id', 'BIGINT', 1, 2],
      ['price', 'DECIMAL(12,2)', 1, 0],
    ]);
  });

  it('has the same secondary indexes as MySQL', async () => {
    const indexes = await dataSource.query<Array<{ name: string }>>(
      `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'orders' AND name LIKE 'idx_%' ORDER BY name`,
    );
    expect(indexes.map((index) => index.name)).toEqual([
      'idx_orders_concert_created',
      'idx_orders_created',
      'idx_orders_user_created',
    ]);
  });
});
