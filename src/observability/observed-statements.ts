import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { performance } from 'node:perf_hooks';
import { DataSource } from 'typeorm';
import type { ServerName } from '../database/database-server';
import { DatabaseHealthMonitor } from '../database/database-health-monitor';
import type { StatementKind, StatementObserver } from '../database/read-session';
import { Metrics } from './metrics';
import { tracer } from './tracing';

/** The read router's STATEMENT_OBSERVER. Times each listing statement into `db_client_operation_duration_seconds` and, when the request's trace is
 * recorded, traces it as a child span: its kind and server, never its values. */
@Injectable()
export class ObservedStatements implements StatementObserver {
  private readonly system: string;

  constructor(
    private readonly metrics: Metrics,
    @InjectDataSource() dataSource: DataSource,
    monitor: DatabaseHealthMonitor,
  ) {
    this.system = dataSource.options.type === 'mysql' ? 'mysql' : 'sqlite';
    monitor.onCheck((server, seconds) => metrics.statementDuration.observe({ statement: 'ping', server }, seconds));
  }

  started(statement: StatementKind, server: ServerName): (error?: unknown) => void {
    const started = performance.now();
    // A trace not recorded would not record the statement's span either: none is made.
    const span = trace.getActiveSpan()?.isRecording()
      ? tracer().startSpan(`${statement} ${this.system}`, {
          kind: SpanKind.CLIENT,
          attributes: { 'db.system.name': this.system, 'db.operation.name': statement, 'db.server': server },
        })
      : undefined;
    return (error) => {
      this.metrics.statementDuration.observe({ statement, server }, (performance.now() - started) / 1000);
      if (!span) return;
      // The error's name only: a driver's message can quote the statement and its values.
      if (error !== undefined) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
      }
      span.end();
    };
  }
}
