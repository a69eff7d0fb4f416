import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DATABASE_CONFIG } from '../config/config.module';
import type { DatabaseConfig } from '../config/database.config';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { InvalidConfigurationError } from '../config/environment';
import { buildDataSourceOptions } from './data-source-options';
import { DatabaseServers } from './database-servers';
import { Freshness } from './freshness';
import { ReadRouter } from './read-router';
import { ServerChoice } from './server-choice';
import { DatabaseHealthMonitor } from './database-health-monitor';
import { RequestDeadlines } from './request-deadline';
import { tlsMisconfigurationOf } from './tls-misconfiguration';

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [DATABASE_CONFIG],
      useFactory: (config: DatabaseConfig) => ({
        ...buildDataSourceOptions(config),
        // A configuration error does not go away by waiting; an unreachable server may.
        toRetry: (error: unknown) => !(error instanceof InvalidConfigurationError),
        // The entities are the features' own, registered with TypeOrmModule.forFeature.
        autoLoadEntities: true,
        // The embedded database sets itself up for `npm start`; MySQL is migrated with `npm run migration:run`.
        migrationsRun: config.type === 'sqlite',
      }),
      dataSourceFactory: async (options?: DataSourceOptions) => {
        const dataSource = new DataSource(options as DataSourceOptions);
        try {
          return await dataSource.initialize();
        } catch (error) {
          throw (await tlsMisconfigurationOf(error, dataSource.options)) ?? error;
        }
      },
    }),
  ],
  providers: [DatabaseServers, DatabaseHealthMonitor, RequestDeadlines, ServerChoice, Freshness, ReadRouter],
  exports: [DatabaseServers, DatabaseHealthMonitor, Freshness, ReadRouter],
})
export class DatabaseModule {}
