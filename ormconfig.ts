import 'dotenv/config';
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { toDatabaseConfig } from './src/config/database.config';
import { validateEnvironment } from './src/config/environment';
import { buildDataSourceOptions } from './src/database/data-source-options';
import { ORDER_ENTITIES } from './src/orders/order-entities';

/** The DataSource of the TypeORM CLI (`npm run migration:*`), configured by the same variables as the service. */
export default new DataSource({
  ...buildDataSourceOptions(toDatabaseConfig(validateEnvironment(process.env)), 'maintenance'),
  // migration:generate compares these with the schema.
  entities: ORDER_ENTITIES,
});
