import { Module } from '@nestjs/common';
import { LocalTimeFormatter } from '../common/time/local-time';
import type { AppConfig } from '../config/app.config';
import { APP_CONFIG } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { OrderCountFolding } from './counting/order-count-folding';
import { OrdersController } from './orders.controller';
import { OrdersRepository } from './orders.repository';
import { OrdersService } from './orders.service';
import { ListOrdersQueryPipe } from './query/list-orders-query.pipe';

@Module({
  imports: [DatabaseModule],
  controllers: [OrdersController],
  providers: [
    OrdersService,
    OrdersRepository,
    OrderCountFolding,
    ListOrdersQueryPipe,
    {
      provide: LocalTimeFormatter,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new LocalTimeFormatter(config.timeZone),
    },
  ],
})
export class OrdersModule {}
