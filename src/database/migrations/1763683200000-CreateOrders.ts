import { MigrationInterface, QueryRunner } from 'typeorm';

/** Written per dialect, not with TypeORM's `Table`, so that MySQL's column types are exactly the contract's and SQLite
 * gets `INTEGER PRIMARY KEY`, the only column type it can auto-increment. */
export class CreateOrders1763683200000 implements MigrationInterface {
  name = 'CreateOrders1763683200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type === 'mysql') {
      await queryRunner.query(`
        CREATE TABLE \`orders\` (
          \`id\` BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
          \`user_id\` BIGINT UNSIGNED NOT NULL,
          \`concert_id\` BIGINT UNSIGNED NOT NULL,
          \`total_price\` DECIMAL(12,2) NOT NULL,
          \`status\` VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
          \`created_at\` DATETIME(3) NOT NULL,
          \`updated_at\` DATETIME(3) NOT NULL,
          PRIMARY KEY (\`id\`),
          INDEX \`idx_orders_created\` (\`created_at\`),
          INDEX \`idx_orders_user_created\` (\`user_id\`, \`created_at\`),
          INDEX \`idx_orders_concert_created\` (\`concert_id\`, \`created_at\`),
          INDEX \`idx_orders_status_created\` (\`status\`, \`created_at\`)
        ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
      await queryRunner.query(`
        CREATE TABLE \`order_seats\` (
          \`order_id\` BIGINT UNSIGNED NOT NULL,
          \`seat_price_id\` BIGINT UNSIGNED NOT NULL,
          \`price\` DECIMAL(12,2) NOT NULL,
          PRIMARY KEY (\`order_id\`, \`seat_price_id\`),
          CONSTRAINT \`fk_order_seats_order\` FOREIGN KEY (\`order_id\`) REFERENCES \`orders\` (\`id\`) ON DELETE CASCADE
        ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
      return;
    }
    await queryRunner.query(`
      CREATE TABLE "orders" (
        "id" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
        "user_id" BIGINT NOT NULL CHECK ("user_id" > 0),
        "concert_id" BIGINT NOT NULL CHECK ("concert_id" > 0),
        "total_price" DECIMAL(12,2) NOT NULL,
        "status" VARCHAR(32) NOT NULL,
        "created_at" DATETIME NOT NULL,
        "updated_at" DATETIME NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX "idx_orders_created" ON "orders" ("created_at")`);
    await queryRunner.query(`CREATE INDEX "idx_orders_user_created" ON "orders" ("user_id", "created_at")`);
    await queryRunner.query(`CREATE INDEX "idx_orders_concert_created" ON "orders" ("concert_id", "created_at")`);
    await queryRunner.query(`CREATE INDEX "idx_orders_status_created" ON "orders" ("status", "created_at")`);
    await queryRunner.query(`
      CREATE TABLE "order_seats" (
        "order_id" BIGINT NOT NULL REFERENCES "orders" ("id") ON DELETE CASCADE,
        "seat_price_id" BIGINT NOT NULL,
        "price" DECIMAL(12,2) NOT NULL,
        PRIMARY KEY ("order_id", "seat_price_id")
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE order_seats');
    await queryRunner.query('DROP TABLE orders');
  }
}
