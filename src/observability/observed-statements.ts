import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { performance } from 'node:perf_hooks';
import { DataSource } from 'typeorm';
import { Metrics, type ServerName, type StatementKind } from './metrics';
import { tracer } from './tracing';

/**
 * Runs a database statement where it is issued, timing it into
 * `db_client_operation_duration_seconds` and tracing it as a child span of
 * the request (CONTRACT §12): the statement's kind and the server it ran on,
 * never its parameters' values.
 */
@Injectable()
export class ObservedStatements {
  private readonly system: string;

  constructor(
    private readonly metrics: Metrics,
    @InjectDataSource() dataSource: DataSource,
  ) {
    this.system = dataSource.options.type === 'mysql' ? 'mysql' : 'sqlite';
  }

  async run<T>(statement: StatementKind, execute: () => Promise<T>, server: ServerName = 'primary'): Promise<T> {
    const span = tracer().startSpan(`${statement} ${this.system}`, {
      kind: SpanKind.CLIENT,
      attributes: { 'db.system.name': this.system, 'db.operation.name': statement, 'db.server': server },
    });
    const started = performance.now();
    try {
      return await context.with(trace.setSpan(context.active(), span), execute);
    } catch (error) {
      // The error's name only: a driver's message can quote the statement and its values.
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
      throw error;
    } finally {
      this.metrics.statementDuration.observe({ statement, server }, (performance.now() - started) / 1000);
      span.end();
    }
  }
}
