import type { Logger } from 'typeorm';

export interface RecordedStatement {
  sql: string;
  parameters: unknown[];
}

/** One row of MariaDB's EXPLAIN, as far as the plan tests read it. */
export interface PlanRow {
  id: number;
  select_type: string;
  table: string;
  type: string;
  key: string | null;
  Extra: string | null;
}

/** Records every statement the service sends, as the DataSource's logger. */
export class StatementRecorder implements Partial<Logger> {
  statements: RecordedStatement[] = [];
  logQuery(sql: string, parameters?: unknown[]): void {
    this.statements.push({ sql, parameters: parameters ?? [] });
  }
  logQueryError(): void {}
  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}
}
