import 'dotenv/config';
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { DataSource } from 'typeorm';
import { toDatabaseConfig } from '../config/database.config';
import { validateEnvironment } from '../config/environment';
import { buildDataSourceOptions } from '../database/data-source-options';
import { generateOrders } from '../database/seeding/order-generator';
import { writeOrders } from '../database/seeding/order-writer';

const USAGE =
  'Usage: npm run seed -- [--orders 10000] [--members 1000] [--concerts 100] [--days 365] [--seed 1] [--reset]';

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
      await runner.query('SET FOREIGN_KEY_CHECKS = 1');
    } else {
      await runner.query('DELETE FROM order_seats');
      await runner.query('DELETE FROM orders');
    }
  } finally {
    await runner.release();
  }
}

/** Fills the configured database with generated orders, for demos and measurements. */
async function main(): Promise<void> {
  if (process.env.NODE_ENV === 'production') throw new Error('Refusing to seed with NODE_ENV=production.');
  const env = validateEnvironment(process.env);
  const { values } = parseArgs({
    options: {
      orders: { type: 'string', default: '10000' },
      members: { type: 'string', default: '1000' },
      concerts: { type: 'string', default: '100' },
      days: { type: 'string', default: '365' },
      seed: { type: 'string', default: '1' },
      reset: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const options = {
    orders: positiveInteger('orders', values.orders),
    members: positiveInteger('members', values.members),
    concerts: positiveInteger('concerts', values.concerts),
    days: positiveInteger('days', values.days),
    seed: positiveInteger('seed', values.seed),
    endMs: Date.now(),
  };

  const dataSource = new DataSource(buildDataSourceOptions(toDatabaseConfig(env)));
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
    await writeOrders(dataSource, generateOrders(options), (written) => {
      process.stdout.write(`\r${written} / ${options.orders} orders`);
    });
    process.stdout.write(`\nSeeded ${options.orders} orders in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  } finally {
    await dataSource.destroy();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
