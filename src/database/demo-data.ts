import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { generateOrders } from './seeding/order-generator';
import { writeOrders } from './seeding/order-writer';

/** The member whose USER token the startup banner prints; the generator makes member 1 the most active. */
export const DEMO_MEMBER_ID = 1;
const DEMO_ORDERS = 3000;

/** Fills an empty embedded database so that `npm start` has something to list. */
export async function fillEmptyDatabaseWithDemoOrders(dataSource: DataSource): Promise<void> {
  const [{ present }] = await dataSource.query<Array<{ present: number }>>(
    'SELECT EXISTS (SELECT 1 FROM orders) AS present',
  );
  if (Number(present) === 1) return;
  await writeOrders(
    dataSource,
    generateOrders({ orders: DEMO_ORDERS, members: 12, concerts: 40, days: 365, endMs: Date.now(), seed: 2026 }),
  );
  new Logger('DemoData').log(`Filled the embedded database with ${DEMO_ORDERS} demo orders`);
}
