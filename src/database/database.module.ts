import { Inject, Module, OnApplicationBootstrap } from '@nestjs/common';
import { type ConfigType } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { databaseConfig } from '../config/database.config';
import { appConfig } from '../config/app.config';
import { buildDataSourceOptions, IN_MEMORY_SQLITE } from './data-source-options';
import { fillEmptyDatabaseWithDemoOrders } from './demo-data';

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [databaseConfig.KEY],
      useFactory: (config: ConfigType<typeof databaseConfig>) => ({
        ...buildDataSourceOptions(config),
        // The embedded database sets itself up so that `npm start` needs nothing else;
        // MySQL is migrated deliberately, with `npm run migration:run`.
        migrationsRun: config.type === 'sqlite',
      }),
    }),
  ],
})
export class DatabaseModule implements OnApplicationBootstrap {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(databaseConfig.KEY) private readonly database: ConfigType<typeof databaseConfig>,
    @Inject(appConfig.KEY) private readonly app: ConfigType<typeof appConfig>,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const isDemo =
      this.database.type === 'sqlite' && this.database.path !== IN_MEMORY_SQLITE && this.app.nodeEnv !== 'test';
    if (isDemo) {
      await fillEmptyDatabaseWithDemoOrders(this.dataSource);
    }
  }
}
