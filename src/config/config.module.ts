import type { DynamicModule } from '@nestjs/common';
import { ConfigModule, getConfigToken, registerAs } from '@nestjs/config';
import { toAccessRecordsConfig } from './access-records.config';
import { toAppConfig } from './app.config';
import { toAuthConfig } from './auth.config';
import { toDatabaseConfig } from './database.config';
import { validateEnvironment } from './environment';
import type { EnvironmentVariables } from './environment-variables';

/** Injection tokens of the configuration namespaces (`@Inject(APP_CONFIG) config: AppConfig`). */
export const APP_CONFIG = getConfigToken('app');
export const DATABASE_CONFIG = getConfigToken('database');
export const AUTH_CONFIG = getConfigToken('auth');
export const ACCESS_RECORDS_CONFIG = getConfigToken('accessRecords');

/** The environment is validated once (an invalid value stops the start, named); each namespace is cut from it. */
export function configModule(): Promise<DynamicModule> {
  let validated: EnvironmentVariables | undefined;
  const environment = (): EnvironmentVariables => {
    // ConfigModule runs `validate` before it creates any namespace.
    if (!validated) throw new Error('The configuration namespaces were read before the environment was validated');
    return validated;
  };
  return ConfigModule.forRoot({
    isGlobal: true,
    // `.env` is read once, by the entry points (main, ormconfig, CLI), so tests never pick up a developer's file.
    ignoreEnvFile: true,
    validate: (raw) => (validated = validateEnvironment(raw as Record<string, string | undefined>)),
    load: [
      registerAs('app', () => toAppConfig(environment())),
      registerAs('database', () => toDatabaseConfig(environment())),
      registerAs('auth', () => toAuthConfig(environment())),
      registerAs('accessRecords', () => toAccessRecordsConfig(environment())),
    ],
  });
}
