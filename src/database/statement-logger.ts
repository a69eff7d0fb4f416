import { Logger as NestLogger } from '@nestjs/common';
import type { Logger } from 'typeorm';

/**
 * TypeORM's logger for the service. TypeORM prints every statement slower
 * than DB_QUERY_TIMEOUT_MS with its SQL to the console, whatever `logging`
 * says; here slowness is measured by `db_client_operation_duration_seconds`
 * and traced per statement, and a storm of slow statements must not become a
 * storm of console lines. Migrations and warnings go to the application log;
 * a failing statement surfaces as the request's error.
 */
export class StatementLogger implements Logger {
  private readonly logger = new NestLogger('TypeORM');

  logQuery(): void {}

  logQueryError(): void {}

  logQuerySlow(): void {}

  logSchemaBuild(): void {}

  logMigration(message: string): void {
    this.logger.log(message);
  }

  log(level: 'log' | 'info' | 'warn', message: unknown): void {
    if (level === 'warn') this.logger.warn(String(message));
  }
}
