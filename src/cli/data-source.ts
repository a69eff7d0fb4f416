import 'dotenv/config';
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { toDatabaseConfig } from '../config/database.config';
import { validateEnvironment } from '../config/environment';
import { buildDataSourceOptions } from '../database/data-source-options';
import { ORDER_ENTITIES } from '../orders/order-entities';

/**
 * The DataSource of the TypeORM CLI (`migration:generate`, `migration:revert`), configured by the same variables as
 * the service; `ormconfig.ts` is the same module for development. Running the migrations is `migrate.ts`'s, which
 * also brings each replica's own structures up to date.
 */
export default new DataSource({
  ...buildDataSourceOptions(toDatabaseConfig(validateEnvironment(process.env)), 'maintenance'),
  // migration:generate compares these with the schema.
  entities: ORDER_ENTITIES,
});
