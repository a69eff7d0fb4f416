import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import type { DatabaseConfig } from '../config/database.config';
import { CreateOrders1763683200000 } from './migrations/1763683200000-CreateOrders';
import { AddSortIndexes1763769600000 } from './migrations/1763769600000-AddSortIndexes';
import { AddCombinedFilterIndexes1763856000000 } from './migrations/1763856000000-AddCombinedFilterIndexes';
import { AddDailyOrderCounts1763942400000 } from './migrations/1763942400000-AddDailyOrderCounts';
import { CountChangesOffTheWritePath1764028800000 } from './migrations/1764028800000-CountChangesOffTheWritePath';
import { StatusIndexOffTheWritePath1764115200000 } from './migrations/1764115200000-StatusIndexOffTheWritePath';
import { OneCountRowPerStatusChange1764201600000 } from './migrations/1764201600000-OneCountRowPerStatusChange';
import { IdsAndConcertsPerDay1764288000000 } from './migrations/1764288000000-IdsAndConcertsPerDay';
import { AccessRecords1764374400000 } from './migrations/1764374400000-AccessRecords';
import { StatementLogger } from './statement-logger';

/** Listed as classes, not path globs, so the same list works from sources, the build and the tests. */
export const MIGRATIONS = [
  CreateOrders1763683200000,
  AddSortIndexes1763769600000,
  AddCombinedFilterIndexes1763856000000,
  AddDailyOrderCounts1763942400000,
  CountChangesOffTheWritePath1764028800000,
  StatusIndexOffTheWritePath1764115200000,
  OneCountRowPerStatusChange1764201600000,
  IdsAndConcertsPerDay1764288000000,
  AccessRecords1764374400000,
];

export const IN_MEMORY_SQLITE = ':memory:';

/** Who connects: the service bounds each query by DB_QUERY_TIMEOUT_MS; maintenance builds indexes, taking longer. */
export type ConnectionPurpose = 'service' | 'maintenance';

/** The one description of how to reach the database, shared by the service, the TypeORM CLI and the seeder. */
export function buildDataSourceOptions(
  config: DatabaseConfig,
  purpose: ConnectionPurpose = 'service',
): DataSourceOptions {
  const common = {
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    synchronize: false,
    logger: new StatementLogger(),
  } as const;

  if (config.type === 'sqlite') {
    const inMemory = config.path === IN_MEMORY_SQLITE;
    if (!inMemory) {
      mkdirSync(dirname(config.path), { recursive: true });
    }
    return {
      ...common,
      type: 'sqljs',
      location: inMemory ? undefined : config.path,
      autoSave: !inMemory,
    };
  }

  return {
    ...common,
    type: 'mysql',
    host: config.host,
    port: config.port,
    username: config.username,
    password: config.password,
    database: config.database,
    // DB_SSL: encrypted, and verified as configured; one object, so that every pooled connection shares its context.
    ssl: config.tls,
    charset: 'utf8mb4_unicode_ci',
    // Times are stored in UTC; the driver's default, the process's zone, would shift them.
    timezone: 'Z',
    poolSize: config.poolSize,
    // A server that accepts connections but never answers (paused, overloaded) costs at most this long per attempt.
    connectTimeout: config.queryTimeoutMs,
    // mysql2 abandons a query past this time and destroys its connection, so a stuck query frees its pool slot.
    enableQueryTimeout: purpose === 'service',
    maxQueryExecutionTime: config.queryTimeoutMs,
    // A snapshot is begun and ended in the round trips of a listing's own statements (docs/adr/0020).
    multipleStatements: purpose === 'service',
    // BIGINT ids and COUNT(*) come back as numbers (they stay far below 2^53); DECIMAL too, as the contract returns numbers.
    supportBigNumbers: true,
    bigNumberStrings: false,
    extra: {
      decimalNumbers: true,
      // No limit here: DatabaseAdmission lets only as many requests at the pool as it has connections.
      queueLimit: 0,
      enableKeepAlive: true,
      // A failure is logged with its request id, so mysql2's stack trace per query is not worth its cost.
      trace: false,
      // mysql2's default cache of 16,000 prepared statements per connection ran a large pool's heap out; none are sent.
      maxPreparedStatements: 16,
    },
  };
}
