import { createConnection, type Connection, type RowDataPacket } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { foldAllChanges } from '../../src/orders/counting/daily-counts';
import { applyReplicaIndexes } from '../../src/orders/replica-structures';
import { generateOrders } from '../../src/orders/seeding/order-generator';
import { writeOrders } from '../../src/orders/seeding/order-writer';
import type { ThrowawayMysql } from '../../launchers/mysql-server';
import { thousands } from './measure';
import { sleep } from './sale-orders';

// The schemas the write bench compares (docs/API.md §7), and the orders each primary holds before its rounds.

export interface SchemaUnderTest {
  name: string;
  /** Creates the tables in `database` (empty), ready for the preload. */
  create(server: ThrowawayMysql, database: string): Promise<void>;
  /** Whether it counts orders for the service to fold: an instance then serves it throughout, folding. */
  foldsCounts?: boolean;
}

/** Dirty pages (16 KiB each) below which the server counts as written out: what the fold and the idle server leave. */
const WRITTEN_OUT_DIRTY_PAGES = 1_000;
const WRITE_OUT_LIMIT_MS = 900_000;

export const BARE_TABLES: SchemaUnderTest = {
  name: 'bare tables',
  async create(server, database) {
    const connection = await createConnection({ host: '127.0.0.1', port: server.port, user: 'root', database });
    try {
      await connection.query(`
        CREATE TABLE orders (
          id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
          user_id BIGINT UNSIGNED NOT NULL,
          concert_id BIGINT UNSIGNED NOT NULL,
          total_price DECIMAL(12,2) NOT NULL,
          status VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
          created_at DATETIME(3) NOT NULL,
          updated_at DATETIME(3) NOT NULL,
          PRIMARY KEY (id)
        ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
      await connection.query(`
        CREATE TABLE order_seats (
          order_id BIGINT UNSIGNED NOT NULL,
          seat_price_id BIGINT UNSIGNED NOT NULL,
          price DECIMAL(12,2) NOT NULL,
          PRIMARY KEY (order_id, seat_price_id),
          CONSTRAINT fk_order_seats_order FOREIGN KEY (order_id) REFERENCES orders (id) ON DELETE CASCADE
        ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    } finally {
      await connection.end();
    }
  },
};

export const PROJECT_SCHEMA: SchemaUnderTest = {
  name: 'project schema',
  foldsCounts: true,
  async create(server, database) {
    const dataSource = await migrated(server, database);
    await dataSource.destroy();
  },
};

/**
 * A replica promoted to primary: the project's schema and the replicas' own column and indexes, which every write
 * then pays for until `npm run migration:run` takes them off (docs/OPERATIONS.md, "After a promotion").
 */
export const PROMOTED_REPLICA: SchemaUnderTest = {
  name: 'promoted replica',
  foldsCounts: true,
  async create(server, database) {
    const dataSource = await migrated(server, database);
    const runner = dataSource.createQueryRunner();
    try {
      await applyReplicaIndexes(runner);
    } finally {
      await runner.release();
      await dataSource.destroy();
    }
  },
};

/**
 * Takes a database holding the project's schema to the bare tables' in place: its triggers and the orders table's
 * secondary indexes dropped (each a quick change to InnoDB, whatever the table's size).
 */
export async function stripToBareTables(connection: Connection, database: string): Promise<void> {
  const [triggers] = await connection.query<RowDataPacket[]>(
    'SELECT TRIGGER_NAME AS name FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ?',
    [database],
  );
  for (const { name } of triggers) await connection.query(`DROP TRIGGER \`${database}\`.\`${String(name)}\``);
  const [indexes] = await connection.query<RowDataPacket[]>(
    `SELECT DISTINCT INDEX_NAME AS name FROM information_schema.STATISTICS
      WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'orders' AND INDEX_NAME <> 'PRIMARY'`,
    [database],
  );
  if (indexes.length > 0)
    await connection.query(
      `ALTER TABLE \`${database}\`.orders ${indexes.map(({ name }) => `DROP INDEX \`${String(name)}\``).join(', ')}`,
    );
}

async function open(server: ThrowawayMysql, database: string, poolSize = 4): Promise<DataSource> {
  const dataSource = new DataSource(
    buildDataSourceOptions(
      {
        type: 'mysql',
        host: '127.0.0.1',
        port: server.port,
        username: 'root',
        password: '',
        database,
        poolSize,
        queryTimeoutMs: 60_000,
        replicas: [],
        replicaMaxLagSeconds: 5,
        replicaMaxStalenessSeconds: 300,
        replicaWaitMs: 50,
        fullSortMaxOrders: 1_000_000,
      },
      'maintenance',
    ),
  );
  return dataSource.initialize();
}

async function migrated(server: ThrowawayMysql, database: string): Promise<DataSource> {
  const dataSource = await open(server, database);
  await dataSource.runMigrations();
  return dataSource;
}

/** The same generated orders in every database, so that each schema starts from the same table. */
export async function preload(server: ThrowawayMysql, database: string, orders: number): Promise<void> {
  // One connection, so that its session settings hold for every batch: the preload is the starting state, not
  // what is measured, so it is neither binary-logged nor flushed at each commit (ten million orders in minutes).
  const dataSource = await open(server, database, 1);
  await dataSource.query('SET SESSION sql_log_bin = 0');
  await dataSource.query('SET GLOBAL innodb_flush_log_at_trx_commit = 2');
  try {
    await writeOrders(
      dataSource,
      generateOrders({ orders, members: 50_000, concerts: 400, days: 730, endMs: Date.now(), seed: 7 }),
    );
    // The change rows the count triggers wrote for the preload are folded now, as the seeder does: left to the
    // service's fold, millions of them would be folded during the rounds and counted against the schema.
    const [{ changes }] = await dataSource.query<Array<{ changes: number }>>(
      "SELECT COUNT(*) AS changes FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'order_count_changes'",
    );
    if (Number(changes) > 0) await foldAllChanges(dataSource);
  } finally {
    await dataSource.query('SET GLOBAL innodb_flush_log_at_trx_commit = 1');
    await dataSource.destroy();
  }
}

/** One of the server's global status counters. */
export async function globalStatus(connection: Connection, name: string): Promise<number> {
  const [[{ Value: value }]] = await connection.query<Array<{ Value: string } & RowDataPacket>>(
    'SHOW GLOBAL STATUS LIKE ?',
    [name],
  );
  return Number(value);
}

/** Polls a global status counter until it is below `below`; `failure` says what did not happen within `limitMs`. */
async function waitUntilBelow(
  connection: Connection,
  name: string,
  below: number,
  { everyMs, limitMs, failure }: { everyMs: number; limitMs: number; failure: string },
): Promise<void> {
  const deadline = Date.now() + limitMs;
  while ((await globalStatus(connection, name)) >= below) {
    if (Date.now() > deadline) throw new Error(`${failure} within ${limitMs} ms`);
    await sleep(everyMs);
  }
}

/**
 * Writes a server's dirty pages at full pace rather than the idle one, until fewer than `belowPages` remain, then sets
 * its page cleaner back. Returns how many were dirty before.
 */
export async function writeOutDirtyPages(connection: Connection, belowPages: number): Promise<number> {
  const [[before]] = await connection.query<Array<{ dirtyPct: number; io: number; ioMax: number } & RowDataPacket>>(
    'SELECT @@innodb_max_dirty_pages_pct AS dirtyPct, @@innodb_io_capacity AS io, @@innodb_io_capacity_max AS ioMax',
  );
  const dirty = await globalStatus(connection, 'Innodb_buffer_pool_pages_dirty');
  await connection.query('SET GLOBAL innodb_io_capacity_max = 40000');
  await connection.query('SET GLOBAL innodb_io_capacity = 20000');
  await connection.query('SET GLOBAL innodb_max_dirty_pages_pct = 0');
  try {
    await waitUntilBelow(connection, 'Innodb_buffer_pool_pages_dirty', belowPages, {
      everyMs: 500,
      limitMs: WRITE_OUT_LIMIT_MS,
      failure: 'the dirty pages were not written',
    });
  } finally {
    await connection.query('SET GLOBAL innodb_max_dirty_pages_pct = ?', [before.dirtyPct]);
    await connection.query('SET GLOBAL innodb_io_capacity = ?', [before.io]);
    await connection.query('SET GLOBAL innodb_io_capacity_max = ?', [before.ioMax]);
  }
  return dirty;
}

/**
 * Writes every page the preload left dirty before the first round, so that no schema's rounds pay for writing out
 * gigabytes of loaded pages (the project's schema loads 1.6× the bare tables' pages).
 */
export async function writeOutPreload(server: ThrowawayMysql, schema: SchemaUnderTest): Promise<void> {
  const connection = await createConnection({ host: '127.0.0.1', port: server.port, user: 'root' });
  try {
    const started = Date.now();
    const dirty = await writeOutDirtyPages(connection, WRITTEN_OUT_DIRTY_PAGES);
    console.error(`${schema.name}: preload written out, ${thousands(dirty)} dirty pages in ${Date.now() - started} ms`);
  } finally {
    await connection.end();
  }
}
