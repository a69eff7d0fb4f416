import { Module } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { LocalTimeFormatter } from '../common/time/local-time';
import { appConfig } from '../config/app.config';
import { OrdersController } from './orders.controller';
import { OrdersRepository } from './orders.repository';
import { OrdersService } from './orders.service';
import { ListOrdersQueryPipe } from './query/list-orders-query.pipe';

@Module({
  controllers: [OrdersController],
  providers: [
    OrdersService,
    OrdersRepository,
    ListOrdersQueryPipe,
    {
      provide: LocalTimeFormatter,
      inject: [appConfig.KEY],
      useFactory: (config: ConfigType<typeof appConfig>) => new LocalTimeFormatter(config.timeZone),
    },
  ],
  exports: [OrdersRepository],
})
export class OrdersModule {}
