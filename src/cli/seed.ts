import 'dotenv/config';
import 'reflect-metadata';
import { Presets, SingleBar } from 'cli-progress';
import { parseArgs } from 'node:util';
import { DataSource } from 'typeorm';
import { toDatabaseConfig } from '../config/database.config';
import { validateEnvironment } from '../config/environment';
import { buildDataSourceOptions } from '../database/data-source-options';
import { foldAllChanges } from '../orders/counting/daily-counts';
import { generateOrders } from '../orders/seeding/order-generator';
import { writeOrders } from '../orders/seeding/order-writer';

const USAGE =
  'Usage: npm run seed -- [--orders 1000000] [--members 50000] [--concerts 500] [--days 730] [--seed 1] [--end 2026-11-01] [--reset]';

function positiveInteger(name: string, value: string): number {
  const parsed = Number(value);
  if (!/^[1-9][0-9]*$/.test(value) || !Number.isSafeInteger(parsed)) {
    throw new Error(`--${name} must be a positive integer.\n${USAGE}`);
  }
  return parsed;
}

async function emptyTables(dataSource: DataSource): Promise<void> {
  const runner = dataSource.createQueryRunner();
  try {
    if (dataSource.options.type === 'mysql') {
      // TRUNCATE is instant where DELETE would log every row; the foreign key would forbid it.
      await runner.query('SET FOREIGN_KEY_CHECKS = 0');
      await runner.query('TRUNCATE TABLE order_seats');
      await runner.query('TRUNCATE TABLE orders');
      // TRUNCATE fires no trigger: the per-day totals and the changes not folded yet go with it.
      await runner.query('TRUNCATE TABLE order_daily_counts');
      await runner.query('TRUNCATE TABLE order_count_changes');
      await runner.query('TRUNCATE TABLE order_count_moves');
      await runner.query('SET FOREIGN_KEY_CHECKS = 1');
    } else {
      await runner.query('DELETE FROM order_seats');
      await runner.query('DELETE FROM orders');
    }
  } finally {
    await runner.release();
  }
}

interface SecondaryIndex {
  name: string;
  definition: string;
}

/** Bulk loading into the secondary indexes with a small buffer pool turns every insert into random reads; the same
 * indexes built once after the load take a fraction of that time (docs/BENCHMARKS.md). */
async function withSecondaryIndexesBuiltAfterwards(dataSource: DataSource, load: () => Promise<void>): Promise<void> {
  if (dataSource.options.type !== 'mysql') return load();
  const columns = await dataSource.query<Array<{ name: string; column: string; descending: number }>>(
    `SELECT INDEX_NAME AS name, COLUMN_NAME AS \`column\`, COLLATION = 'D' AS descending
       FROM information_schema.STATISTICS
      WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'orders' AND INDEX_NAME <> 'PRIMARY'
      ORDER BY INDEX_NAME, SEQ_IN_INDEX`,
  );
  const indexes = new Map<string, string[]>();
  for (const { name, column, descending } of columns) {
    indexes.set(name, [...(indexes.get(name) ?? []), `\`${column}\`${Number(descending) === 1 ? ' DESC' : ''}`]);
  }
  const secondary: SecondaryIndex[] = [...indexes].map(([name, parts]) => ({ name, definition: parts.join(', ') }));
  if (secondary.length > 0) {
    await dataSource.query(`ALTER TABLE orders ${secondary.map(({ name }) => `DROP INDEX \`${name}\``).join(', ')}`);
  }
  try {
    await load();
  } finally {
    if (secondary.length > 0) {
      process.stdout.write(`Building ${secondary.length} secondary indexes…\n`);
      await dataSource.query(
        `ALTER TABLE orders ${secondary.map(({ name, definition }) => `ADD INDEX \`${name}\` (${definition})`).join(', ')}`,
      );
    }
  }
}

/** Fills the configured database with generated orders, for demos and measurements. */
async function main(): Promise<void> {
  if (process.env.NODE_ENV === 'production') throw new Error('Refusing to seed with NODE_ENV=production.');
  const env = validateEnvironment(process.env);
  const { values } = parseArgs({
    options: {
      orders: { type: 'string', default: '1000000' },
      members: { type: 'string', default: '50000' },
      concerts: { type: 'string', default: '500' },
      days: { type: 'string', default: '730' },
      seed: { type: 'string', default: '1' },
      end: { type: 'string', default: '2026-11-01' },
      reset: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const endMs = Date.parse(`${values.end}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(values.end) || Number.isNaN(endMs))
    throw new Error(`--end must be a date.\n${USAGE}`);
  const options = {
    orders: positiveInteger('orders', values.orders),
    members: positiveInteger('members', values.members),
    concerts: positiveInteger('concerts', values.concerts),
    days: positiveInteger('days', values.days),
    seed: positiveInteger('seed', values.seed),
    endMs,
  };

  const dataSource = new DataSource(buildDataSourceOptions(toDatabaseConfig(env), 'maintenance'));
  await dataSource.initialize();
  try {
    if (await dataSource.showMigrations()) {
      throw new Error('The database has pending migrations; run `npm run migration:run` first.');
    }
    const [{ present }] = await dataSource.query<Array<{ present: number | string }>>(
      'SELECT EXISTS (SELECT 1 FROM orders) AS present',
    );
    if (Number(present) === 1) {
      if (!values.reset) throw new Error('The database already has orders; pass --reset to replace them.');
      await emptyTables(dataSource);
    }
    const started = Date.now();
    const bar = new SingleBar(
      { format: 'orders [{bar}] {percentage}% {value}/{total} {duration}s', hideCursor: true },
      Presets.shades_classic,
    );
    bar.start(options.orders, 0);
    await withSecondaryIndexesBuiltAfterwards(dataSource, async () => {
      await writeOrders(dataSource, generateOrders(options), (written) => bar.update(written));
      bar.stop();
    });
    // A million changes left to the service's background folding would make its first counts scan them all.
    await foldAllChanges(dataSource);
    if (dataSource.options.type === 'mysql') {
      // Fresh statistics, so the optimizer plans the first queries on the real data.
      await dataSource.query('ANALYZE TABLE orders, order_seats');
    }
    console.log(`Seeded ${options.orders} orders in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    await dataSource.destroy();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
