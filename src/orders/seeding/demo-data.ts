import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../../config/app.config';
import { APP_CONFIG, DATABASE_CONFIG } from '../../config/config.module';
import type { DatabaseConfig } from '../../config/database.config';
import { IN_MEMORY_SQLITE } from '../../database/data-source-options';
import { generateOrders } from './order-generator';
import { writeOrders } from './order-writer';

/** The member whose USER token the startup banner prints; the generator makes member 1 the most active. */
export const DEMO_MEMBER_ID = 1;
const DEMO_ORDERS = 3000;

/** Fills an empty embedded database file with demo orders, so that `npm start` has something to list (docs/API.md
 * §9). */
@Injectable()
export class DemoDataSeeder implements OnApplicationBootstrap {
  private readonly logger = new Logger('DemoData');

  constructor(
    private readonly dataSource: DataSource,
    @Inject(DATABASE_CONFIG) private readonly database: DatabaseConfig,
    @Inject(APP_CONFIG) private readonly app: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const isDemo =
      this.database.type === 'sqlite' && this.database.path !== IN_MEMORY_SQLITE && this.app.nodeEnv !== 'test';
    if (!isDemo) return;
    const [{ present }] = await this.dataSource.query<Array<{ present: number }>>(
      'SELECT EXISTS (SELECT 1 FROM orders) AS present',
    );
    if (Number(present) === 1) return;
    await writeOrders(
      this.dataSource,
      generateOrders({ orders: DEMO_ORDERS, members: 12, concerts: 40, days: 365, endMs: Date.now(), seed: 2026 }),
    );
    this.logger.log(`Filled the embedded database with ${DEMO_ORDERS} demo orders`);
  }
}
