import { Global, Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { DatabaseModule } from '../database/database.module';
import { Metrics } from './metrics';
import { MetricsServer } from './metrics-server';
import { ObservedStatements } from './observed-statements';
import { Tracing } from './tracing';

/** Metrics, their listener and tracing, for every module that runs statements. */
@Global()
@Module({
  imports: [DatabaseModule, AuthModule],
  providers: [Metrics, MetricsServer, Tracing, ObservedStatements],
  exports: [Metrics],
})
export class ObservabilityModule {}
