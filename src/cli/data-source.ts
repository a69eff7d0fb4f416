import 'dotenv/config';
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { toDatabaseConfig } from '../config/database.config';
import { validateEnvironment } from '../config/environment';
import { buildDataSourceOptions } from '../database/data-source-options';
import { ORDER_ENTITIES } from '../orders/order-entities';

/** The TypeORM CLI's DataSource, configured by the service's variables; `ormconfig.ts` is the same module. */
export default new DataSource({
  ...buildDataSourceOptions(toDatabaseConfig(validateEnvironment(process.env)), 'maintenance'),
  // migration:generate compares these with the schema.
  entities: ORDER_ENTITIES,
});
