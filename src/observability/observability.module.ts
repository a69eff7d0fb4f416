import { Global, Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { DatabaseModule } from '../database/database.module';
import { STATEMENT_OBSERVER } from '../database/read-session';
import { Metrics } from './metrics';
import { MetricsServer } from './metrics-server';
import { ObservedStatements } from './observed-statements';
import { Tracing } from './tracing';

/** Metrics, their listener and tracing, for every module that runs statements. */
@Global()
@Module({
  imports: [DatabaseModule, AuthModule],
  providers: [
    Metrics,
    MetricsServer,
    Tracing,
    ObservedStatements,
    // Global, so that the database module's read router is given it without importing this module.
    { provide: STATEMENT_OBSERVER, useExisting: ObservedStatements },
  ],
  exports: [Metrics, STATEMENT_OBSERVER],
})
export class ObservabilityModule {}
