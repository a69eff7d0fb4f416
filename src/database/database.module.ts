import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DATABASE_CONFIG } from '../config/config.module';
import type { DatabaseConfig } from '../config/database.config';
import { buildDataSourceOptions } from './data-source-options';
import { DemoDataSeeder } from './demo-data';
import { ReadRouter } from './read-router';

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [DATABASE_CONFIG],
      useFactory: (config: DatabaseConfig) => ({
        ...buildDataSourceOptions(config),
        // The embedded database sets itself up so that `npm start` needs nothing else;
        // MySQL is migrated deliberately, with `npm run migration:run`.
        migrationsRun: config.type === 'sqlite',
      }),
    }),
  ],
  providers: [DemoDataSeeder, ReadRouter],
  exports: [ReadRouter],
})
export class DatabaseModule {}
