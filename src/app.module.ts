import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { AuthModule } from './auth/auth.module';
import { appConfig } from './config/app.config';
import { authConfig } from './config/auth.config';
import { databaseConfig } from './config/database.config';
import { DatabaseModule } from './database/database.module';
import { OrdersModule } from './orders/orders.module';

@Module({
  imports: [
    // `.env` is read once, by the entry points (main, ormconfig, CLI), so tests never pick up a developer's file.
    ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, load: [appConfig, databaseConfig, authConfig] }),
    DatabaseModule,
    AuthModule,
    OrdersModule,
  ],
})
export class AppModule {}
