import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { performance } from 'node:perf_hooks';
import { DataSource, type QueryRunner } from 'typeorm';
import type { ServerName } from '../database/database-server';
import { DatabaseHealthMonitor } from '../database/database-health-monitor';
import { DatabaseServers } from '../database/database-servers';
import { Metrics, type StatementKind } from './metrics';
import { tracer } from './tracing';

/** The statements a listing runs; the background check of a server (`ping`) is the other kind. */
export type ListingStatement = Exclude<StatementKind, 'ping'>;

/**
 * Runs a database statement where it is issued, timing it into
 * `db_client_operation_duration_seconds` and, when the request's trace is recorded, tracing it as a child span of
 * the request (docs/API.md §12): the statement's kind and the server it ran on,
 * never its parameters' values.
 */
@Injectable()
export class ObservedStatements {
  private readonly system: string;

  constructor(
    private readonly metrics: Metrics,
    private readonly servers: DatabaseServers,
    @InjectDataSource() dataSource: DataSource,
    monitor: DatabaseHealthMonitor,
  ) {
    this.system = dataSource.options.type === 'mysql' ? 'mysql' : 'sqlite';
    // Each server's check, about once a second, is what readiness answers from: its time is the ping's.
    monitor.onCheck((server, seconds) => metrics.statementDuration.observe({ statement: 'ping', server }, seconds));
  }

  /** A statement of the listing, on the server its request's connection belongs to. */
  run<T>(statement: ListingStatement, runner: QueryRunner, execute: () => Promise<T>): Promise<T> {
    return this.observe(statement, this.servers.serverOf(runner), execute);
  }

  private async observe<T>(statement: ListingStatement, server: ServerName, execute: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      // A request whose trace is not recorded (not exported, or not sampled) would not record its statements' spans
      // either: they are not made at all, which spares a span and a context switch per statement.
      return await (trace.getActiveSpan()?.isRecording() ? this.traced(statement, server, execute) : execute());
    } finally {
      this.metrics.statementDuration.observe({ statement, server }, (performance.now() - started) / 1000);
    }
  }

  private async traced<T>(statement: ListingStatement, server: ServerName, execute: () => Promise<T>): Promise<T> {
    const span = tracer().startSpan(`${statement} ${this.system}`, {
      kind: SpanKind.CLIENT,
      attributes: { 'db.system.name': this.system, 'db.operation.name': statement, 'db.server': server },
    });
    try {
      return await context.with(trace.setSpan(context.active(), span), execute);
    } catch (error) {
      // The error's name only: a driver's message can quote the statement and its values.
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
      throw error;
    } finally {
      span.end();
    }
  }
}
