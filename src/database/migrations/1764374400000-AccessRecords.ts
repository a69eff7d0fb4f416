import { MigrationInterface, QueryRunner } from 'typeorm';
import { MONTHS_AHEAD, addMonths, monthOf, monthsBetween, partitionClause } from '../monthly-partitions';

/** docs/API.md §21: who read whose orders. Records and export ends are chained per instance and kept in monthly
 * partitions, dropped a month at a time; seals are few and kept whole, so that verification outlives a purge. */
const RECORD_COLUMNS = `
  recorded_at DATETIME(3) NOT NULL,
  chain CHAR(36) NOT NULL,
  seq INT UNSIGNED NOT NULL,
  prev_hash CHAR(64) NOT NULL,
  hash CHAR(64) NOT NULL,
  identifier VARCHAR(255) NOT NULL,
  role VARCHAR(16) NOT NULL,
  address VARCHAR(64) NOT NULL,
  request_id VARCHAR(128) NOT NULL,
  action VARCHAR(16) NOT NULL,
  parameters TEXT NOT NULL,
  status SMALLINT NOT NULL,
  problem VARCHAR(255) NULL,
  orders INT NULL,
  members TEXT NULL,
  reason TEXT NULL,
  fields VARCHAR(255) NULL,
  position TEXT NULL`;

const END_COLUMNS = `
  recorded_at DATETIME(3) NOT NULL,
  chain CHAR(36) NOT NULL,
  seq INT UNSIGNED NOT NULL,
  prev_hash CHAR(64) NOT NULL,
  hash CHAR(64) NOT NULL,
  opens_chain CHAR(36) NOT NULL,
  opens_seq INT UNSIGNED NOT NULL,
  orders BIGINT NOT NULL,
  bytes BIGINT NOT NULL,
  complete SMALLINT NOT NULL,
  flagged SMALLINT NOT NULL`;

const SEAL_COLUMNS = `
  sealed_at DATETIME(3) NOT NULL,
  chain CHAR(36) NOT NULL,
  month CHAR(7) NOT NULL,
  seq INT UNSIGNED NOT NULL,
  hash CHAR(64) NOT NULL,
  final SMALLINT NOT NULL,
  others TEXT NOT NULL,
  key_id CHAR(16) NOT NULL,
  signature VARCHAR(128) NOT NULL`;

export class AccessRecords1764374400000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type !== 'mysql') {
      const id = 'id INTEGER PRIMARY KEY AUTOINCREMENT';
      await queryRunner.query(`CREATE TABLE access_records (${id}, ${RECORD_COLUMNS})`);
      await queryRunner.query(`CREATE TABLE access_record_ends (${id}, ${END_COLUMNS})`);
      await queryRunner.query(`CREATE TABLE access_record_seals (${id}, ${SEAL_COLUMNS})`);
      await this.createIndexes(queryRunner);
      return;
    }
    const now = monthOf(new Date());
    const partitions = [
      ...monthsBetween(now, addMonths(now, MONTHS_AHEAD)).map(partitionClause),
      'PARTITION pfuture VALUES LESS THAN (MAXVALUE)',
    ].join(', ');
    // The partitioning column belongs to every unique key: the key is (id, recorded_at), id alone still increases.
    const id = 'id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT';
    for (const [table, columns] of [
      ['access_records', RECORD_COLUMNS],
      ['access_record_ends', END_COLUMNS],
    ]) {
      await queryRunner.query(
        `CREATE TABLE ${table} (${id}, ${columns}, PRIMARY KEY (id, recorded_at)) ENGINE=InnoDB ` +
          `PARTITION BY RANGE COLUMNS(recorded_at) (${partitions})`,
      );
    }
    await queryRunner.query(
      `CREATE TABLE access_record_seals (${id}, ${SEAL_COLUMNS}, PRIMARY KEY (id)) ENGINE=InnoDB`,
    );
    await this.createIndexes(queryRunner);
  }

  private async createIndexes(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE INDEX access_records_recorded_at ON access_records (recorded_at)');
    await queryRunner.query('CREATE INDEX access_records_identifier ON access_records (identifier, recorded_at)');
    await queryRunner.query('CREATE INDEX access_record_ends_opens ON access_record_ends (opens_chain, opens_seq)');
    await queryRunner.query('CREATE INDEX access_record_seals_sealed_at ON access_record_seals (sealed_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['access_record_seals', 'access_record_ends', 'access_records']) {
      await queryRunner.query(`DROP TABLE ${table}`);
    }
  }
}
