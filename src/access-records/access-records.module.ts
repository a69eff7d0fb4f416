import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { AccessRecordsConfig } from '../config/access-records.config';
import { ACCESS_RECORDS_CONFIG } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { DatabaseServers } from '../database/database-servers';
import { AccessRecordMetrics } from './access-record-metrics';
import { EmbeddedAccessRecordStore } from './access-record-store';
import { MysqlAccessRecordStore } from './mysql-access-record-store';
import { ACCESS_RECORD_STORE, AccessRecorder } from './access-recorder';

/** docs/API.md §21: the access records of administrators' reads, and where they are committed. */
@Module({
  imports: [DatabaseModule],
  providers: [
    AccessRecordMetrics,
    AccessRecorder,
    {
      provide: ACCESS_RECORD_STORE,
      inject: [getDataSourceToken(), DatabaseServers, ACCESS_RECORDS_CONFIG],
      useFactory: (dataSource: DataSource, servers: DatabaseServers, config: AccessRecordsConfig) =>
        dataSource.options.type === 'mysql'
          ? new MysqlAccessRecordStore(servers, config.account)
          : new EmbeddedAccessRecordStore(dataSource),
    },
  ],
  exports: [AccessRecorder],
})
export class AccessRecordsModule {}
