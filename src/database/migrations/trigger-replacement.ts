import type { QueryRunner } from 'typeorm';

/** SQLite's DDL is transactional: run inside the migration's transaction, the drop and the create are one step. */
export async function replaceSqliteTriggers(queryRunner: QueryRunner, triggers: Record<string, string>): Promise<void> {
  for (const [name, body] of Object.entries(triggers)) {
    await queryRunner.query(`DROP TRIGGER ${name}`);
    await queryRunner.query(`CREATE TRIGGER ${name} ${body}`);
  }
}

/** Replaces each trigger in one step, so that no write is counted by both the old and the new trigger, nor by
 * neither. */
export async function replaceMysqlTriggers(
  queryRunner: QueryRunner,
  triggers: Record<string, string>,
  writtenTables: string[],
): Promise<void> {
  const [{ version }] = (await queryRunner.query('SELECT VERSION() AS version')) as Array<{ version: string }>;
  const mariadb = /mariadb/i.test(version);
  for (const [name, body] of Object.entries(triggers)) {
    if (mariadb) {
      await queryRunner.query(`CREATE OR REPLACE TRIGGER ${name} ${body}`);
      continue;
    }
    await queryRunner.query(`LOCK TABLES ${['orders', ...writtenTables].map((table) => `${table} WRITE`).join(', ')}`);
    try {
      await queryRunner.query(`DROP TRIGGER ${name}`);
      await queryRunner.query(`CREATE TRIGGER ${name} ${body}`);
    } finally {
      await queryRunner.query('UNLOCK TABLES');
    }
  }
}
