import 'dotenv/config';
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { toDatabaseConfig } from '../config/database.config';
import { validateEnvironment } from '../config/environment';
import { buildDataSourceOptions } from '../database/data-source-options';
import { ORDER_ENTITIES } from '../orders/order-entities';

/**
 * The DataSource of the TypeORM CLI (`migration:*`), configured by the same variables as the service. Compiled into
 * `dist/cli/data-source.js`, so that the production image migrates with the CLI alone
 * (`node node_modules/typeorm/cli.js -d dist/cli/data-source.js migration:run`); `ormconfig.ts` is the same module
 * for development, from the sources.
 */
export default new DataSource({
  ...buildDataSourceOptions(toDatabaseConfig(validateEnvironment(process.env)), 'maintenance'),
  // migration:generate compares these with the schema.
  entities: ORDER_ENTITIES,
});
