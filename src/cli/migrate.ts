import 'dotenv/config';
import 'reflect-metadata';
import { toDatabaseConfig } from '../config/database.config';
import { validateEnvironment } from '../config/environment';
import { migrateServers } from './migrate-servers';

/** `npm run migration:run` (and, compiled, `node dist/cli/migrate.js` in the image): every configured server. */
migrateServers(toDatabaseConfig(validateEnvironment(process.env)), (line) => console.log(line)).catch(
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
