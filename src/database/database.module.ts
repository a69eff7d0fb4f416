import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DATABASE_CONFIG } from '../config/config.module';
import type { DatabaseConfig } from '../config/database.config';
import { buildDataSourceOptions } from './data-source-options';
import { DatabaseServers } from './database-servers';
import { ReadRouter } from './read-router';
import { ReplicaHealthMonitor } from './replica-health-monitor';
import { RequestDeadlines } from './request-deadline';

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [DATABASE_CONFIG],
      useFactory: (config: DatabaseConfig) => ({
        ...buildDataSourceOptions(config),
        // The entities are the features' own, registered with TypeOrmModule.forFeature.
        autoLoadEntities: true,
        // The embedded database sets itself up so that `npm start` needs nothing else;
        // MySQL is migrated deliberately, with `npm run migration:run`.
        migrationsRun: config.type === 'sqlite',
      }),
    }),
  ],
  providers: [DatabaseServers, ReplicaHealthMonitor, RequestDeadlines, ReadRouter],
  exports: [DatabaseServers, ReadRouter],
})
export class DatabaseModule {}
