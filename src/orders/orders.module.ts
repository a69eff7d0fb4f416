import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccessRecordsModule } from '../access-records/access-records.module';
import { LocalTimeFormatter } from '../common/time/local-time';
import type { AppConfig } from '../config/app.config';
import { APP_CONFIG } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { QueryShapes } from '../database/query-shapes';
import { OrderCountFolding } from './counting/order-count-folding';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { SPREADSHEET_MAX_ROWS } from './export/xlsx-encoder';
import { ExportBatches } from './export/export-batches';
import { OrderExports, XLSX_ROWS_PER_SHEET } from './export/order-exports';
import { ORDER_ENTITIES } from './order-entities';
import { OrdersController } from './orders.controller';
import { OrdersRepository } from './orders.repository';
import { OrdersService } from './orders.service';
import { PagePlans } from './page-plans';
import { CountStatements } from './statements/count-statement';
import { DayCountStatements } from './statements/day-counts-statement';
import { PageStatements } from './statements/page-statement';
import { SeatStatements } from './statements/seat-statement';
import { ContinuationTokens } from './paging/continuation';
import { ListOrdersQueryPipe } from './query/list-orders-query.pipe';
import { DemoDataSeeder } from './seeding/demo-data';

@Module({
  imports: [DatabaseModule, RateLimitModule, AccessRecordsModule, TypeOrmModule.forFeature(ORDER_ENTITIES)],
  controllers: [OrdersController],
  providers: [
    OrdersService,
    OrdersRepository,
    PagePlans,
    QueryShapes,
    PageStatements,
    CountStatements,
    SeatStatements,
    DayCountStatements,
    ExportBatches,
    OrderExports,
    OrderCountFolding,
    ListOrdersQueryPipe,
    DemoDataSeeder,
    { provide: XLSX_ROWS_PER_SHEET, useValue: SPREADSHEET_MAX_ROWS },
    {
      provide: ContinuationTokens,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new ContinuationTokens(config.pageLinkSecret),
    },
    {
      provide: LocalTimeFormatter,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new LocalTimeFormatter(config.timeZone),
    },
  ],
})
export class OrdersModule {}
