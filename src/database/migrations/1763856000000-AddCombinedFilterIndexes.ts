import { MigrationInterface, QueryRunner } from 'typeorm';

/** A member's orders filtered further by concert or status: without these, the optimizer intersects two
 * single-column indexes and sorts the result; with them, it reads one index range already in `created_at` order. */
export const COMBINED_FILTER_INDEXES = [
  { name: 'idx_orders_user_concert_created', columns: 'user_id, concert_id, created_at' },
  { name: 'idx_orders_user_status_created', columns: 'user_id, status, created_at' },
];

export class AddCombinedFilterIndexes1763856000000 implements MigrationInterface {
  name = 'AddCombinedFilterIndexes1763856000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const { name, columns } of COMBINED_FILTER_INDEXES) {
      await queryRunner.query(`CREATE INDEX ${name} ON orders (${columns})`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const { name } of COMBINED_FILTER_INDEXES) {
      await queryRunner.query(
        queryRunner.connection.options.type === 'mysql' ? `DROP INDEX ${name} ON orders` : `DROP INDEX ${name}`,
      );
    }
  }
}
