import { readDatabaseTls, type DatabaseTls } from './database-tls';
import type { EnvironmentVariables } from './environment-variables';

export type DatabaseConfig =
  | {
      type: 'sqlite';
      /** File of the embedded database, or `:memory:` for one that lives only as long as the process. */
      path: string;
    }
  | {
      type: 'mysql';
      host: string;
      port: number;
      username: string;
      password: string;
      database: string;
      poolSize: number;
      queryTimeoutMs: number;
      /** Read replicas, in DB_REPLICAS order; the listing reads from them while they are healthy. */
      replicas: { host: string; port: number }[];
      replicaMaxLagSeconds: number;
      /** DB_REPLICA_MAX_STALENESS_S: how far behind a replica may be to serve what only it can. */
      replicaMaxStalenessSeconds: number;
      /** DB_REPLICA_WAIT_MS: how long a read waits for a replica to apply what it must reflect. */
      replicaWaitMs: number;
      /** DB_FULL_SORT_MAX_ORDERS: past it, a sort no index of a server reads in order is not sent to that server. */
      fullSortMaxOrders: number;
      /** DB_SSL and DB_SSL_CA, for the primary and every replica; plain TCP when absent. */
      tls?: DatabaseTls;
    };

export function toDatabaseConfig(env: EnvironmentVariables): DatabaseConfig {
  if (env.DB_TYPE === 'sqlite') {
    return { type: 'sqlite', path: env.SQLITE_PATH };
  }
  return {
    type: 'mysql',
    host: env.DB_HOST,
    port: env.DB_PORT,
    username: env.DB_USERNAME,
    password: env.DB_PASSWORD,
    database: env.DB_DATABASE,
    poolSize: env.DB_POOL_SIZE,
    queryTimeoutMs: env.DB_QUERY_TIMEOUT_MS,
    replicas: env.DB_REPLICAS.map((address) => {
      const separator = address.lastIndexOf(':');
      return { host: address.slice(0, separator), port: Number(address.slice(separator + 1)) };
    }),
    replicaMaxLagSeconds: env.DB_REPLICA_MAX_LAG_S,
    replicaMaxStalenessSeconds: env.DB_REPLICA_MAX_STALENESS_S,
    replicaWaitMs: env.DB_REPLICA_WAIT_MS,
    fullSortMaxOrders: env.DB_FULL_SORT_MAX_ORDERS,
    tls: readDatabaseTls(env).tls,
  };
}
