import { MigrationInterface, QueryRunner } from 'typeorm';

/** Lets an unfiltered listing sorted by any single key read an index in order instead of sorting a million rows. */
const SORTED_COLUMNS = ['total_price', 'updated_at', 'status', 'concert_id', 'user_id'];

export const SORT_INDEXES: Array<{ name: string; columns: string }> = [
  ...SORTED_COLUMNS.map((column) => ({ name: `idx_orders_${column}`, columns: `${column}` })),
  ...[...SORTED_COLUMNS, 'created_at'].map((column) => ({
    name: `idx_orders_${column}_asc`,
    columns: `${column} ASC, id DESC`,
  })),
];

export class AddSortIndexes1763769600000 implements MigrationInterface {
  name = 'AddSortIndexes1763769600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type === 'mysql';
    if (mysql) {
      // One ALTER builds all indexes in a single pass over the table.
      await queryRunner.query(
        `ALTER TABLE orders ${SORT_INDEXES.map(({ name, columns }) => `ADD INDEX ${name} (${columns})`).join(', ')}`,
      );
      return;
    }
    for (const { name, columns } of SORT_INDEXES) {
      await queryRunner.query(`CREATE INDEX ${name} ON orders (${columns})`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const { name } of SORT_INDEXES) {
      await queryRunner.query(
        queryRunner.connection.options.type === 'mysql' ? `DROP INDEX ${name} ON orders` : `DROP INDEX ${name}`,
      );
    }
  }
}
