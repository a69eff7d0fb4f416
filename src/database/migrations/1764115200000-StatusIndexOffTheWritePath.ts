import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/API.md §7: drops `idx_orders_status_created` (status, created_at), the
 * one secondary index every payment rewrote (its entry moves from
 * `PAYMENT_PENDING` to `PAYMENT_COMPLETED`, on the hot last pages of both
 * ranges). It cost the order writers more than any other part of the
 * listing's schema (docs/adr/0010).
 *
 * Its queries are served without it (QueryPlanner): a status is listed by
 * walking `idx_orders_created` in the sort's order, each entry's row checked
 * for the status (the smallest status holds 8 % of the orders: a page of 20
 * reads about 250 entries); a status within dates walks the dates' range of
 * that index; counts by status come from the per-day totals, and the partial
 * first and last days of a date range from that range of `idx_orders_created`.
 *
 * The drop is in place, without a copy and with no lock held on `orders` but
 * a moment's metadata lock, so the order services write on throughout.
 */
const STATUS_INDEX = { name: 'idx_orders_status_created', columns: 'status, created_at' };

export class StatusIndexOffTheWritePath1764115200000 implements MigrationInterface {
  name = 'StatusIndexOffTheWritePath1764115200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type !== 'mysql') {
      await queryRunner.query(`DROP INDEX ${STATUS_INDEX.name}`);
      return;
    }
    // Waiting on the metadata lock behind a long transaction would stall every writer queued behind this one:
    // give up instead, and let the operator run the migration again.
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
