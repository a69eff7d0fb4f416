import type { Logger } from 'typeorm';
import { SNAPSHOT_STATEMENTS, STATEMENT_SEPARATOR } from '../../../src/database/read-session';

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

/** Whether a statement of a round trip is the beginning or the end of a snapshot (ServerAttempt.query). */
export const isSnapshotStatement = (statement: string): boolean =>
  (Object.values(SNAPSHOT_STATEMENTS) as string[]).includes(statement);

/** A round trip's own statement, without the snapshot's beginning or end sent with it; empty for those alone. */
export const ownStatement = (sql: string): string =>
  sql
    .split(STATEMENT_SEPARATOR)
    .filter((statement) => !isSnapshotStatement(statement))
    .join(STATEMENT_SEPARATOR);
