import { MigrationInterface, QueryRunner } from 'typeorm';

/** Drops `idx_orders_status_created` (status, created_at), the one secondary index every payment rewrote (its
 * entry moves from `PAYMENT_PENDING` to `PAYMENT_COMPLETED`, on the hot last pages of both ranges). */
const STATUS_INDEX = { name: 'idx_orders_status_created', columns: 'status, created_at' };

export class StatusIndexOffTheWritePath1764115200000 implements MigrationInterface {
  name = 'StatusIndexOffTheWritePath1764115200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type !== 'mysql') {
      await queryRunner.query(`DROP INDEX ${STATUS_INDEX.name}`);
      return;
    }
    // Waiting on the metadata lock behind a long transaction would stall every writer queued behind this one: give up
    // instead, and let the operator run the migration again.
    await queryRunner.query('SET SESSION lock_wait_timeout = 10');
    await queryRunner.query(`ALTER TABLE orders DROP INDEX ${STATUS_INDEX.name}, ALGORITHM=INPLACE, LOCK=NONE`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type !== 'mysql') {
      await queryRunner.query(`CREATE INDEX ${STATUS_INDEX.name} ON orders (${STATUS_INDEX.columns})`);
      return;
    }
    await queryRunner.query(
      `ALTER TABLE orders ADD INDEX ${STATUS_INDEX.name} (${STATUS_INDEX.columns}), ALGORITHM=INPLACE, LOCK=NONE`,
    );
  }
}
