import type { EnvironmentVariables } from './environment';

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
  };
}
