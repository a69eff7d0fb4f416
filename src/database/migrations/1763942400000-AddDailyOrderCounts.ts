import { MigrationInterface, QueryRunner } from 'typeorm';

/** The triggers' bodies, by dialect, after `CREATE TRIGGER name`: each updates the row of its day and status. */
export const HOT_ROW_TRIGGERS: Record<'mysql' | 'sqlite', Record<string, string>> = {
  mysql: {
    orders_count_insert: `AFTER INSERT ON orders FOR EACH ROW
      INSERT INTO order_daily_counts (day, status, orders) VALUES (DATE(NEW.created_at), NEW.status, 1)
      ON DUPLICATE KEY UPDATE orders = orders + 1`,
    orders_count_delete: `AFTER DELETE ON orders FOR EACH ROW
      UPDATE order_daily_counts SET orders = orders - 1 WHERE day = DATE(OLD.created_at) AND status = OLD.status`,
    orders_count_update: `AFTER UPDATE ON orders FOR EACH ROW
      BEGIN
        IF DATE(NEW.created_at) <> DATE(OLD.created_at) OR NEW.status <> OLD.status THEN
          UPDATE order_daily_counts SET orders = orders - 1 WHERE day = DATE(OLD.created_at) AND status = OLD.status;
          INSERT INTO order_daily_counts (day, status, orders) VALUES (DATE(NEW.created_at), NEW.status, 1)
            ON DUPLICATE KEY UPDATE orders = orders + 1;
        END IF;
      END`,
  },
  sqlite: {
    orders_count_insert: `AFTER INSERT ON orders BEGIN
      INSERT INTO order_daily_counts (day, status, orders) VALUES (date(NEW.created_at), NEW.status, 1)
      ON CONFLICT (day, status) DO UPDATE SET orders = orders + 1;
    END`,
    orders_count_delete: `AFTER DELETE ON orders BEGIN
      UPDATE order_daily_counts SET orders = orders - 1 WHERE day = date(OLD.created_at) AND status = OLD.status;
    END`,
    orders_count_update: `AFTER UPDATE ON orders
      WHEN date(NEW.created_at) <> date(OLD.created_at) OR NEW.status <> OLD.status BEGIN
      UPDATE order_daily_counts SET orders = orders - 1 WHERE day = date(OLD.created_at) AND status = OLD.status;
      INSERT INTO order_daily_counts (day, status, orders) VALUES (date(NEW.created_at), NEW.status, 1)
      ON CONFLICT (day, status) DO UPDATE SET orders = orders + 1;
    END`,
  },
};

/** Exact totals without counting rows: orders per UTC day and status, kept by triggers as `orders` is written. */
export class AddDailyOrderCounts1763942400000 implements MigrationInterface {
  name = 'AddDailyOrderCounts1763942400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type === 'mysql') {
      await queryRunner.query(`
        CREATE TABLE order_daily_counts (
          day DATE NOT NULL,
          status VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
          orders BIGINT NOT NULL,
          PRIMARY KEY (day, status),
          INDEX idx_order_daily_counts_status_day (status, day)
        ) ENGINE=InnoDB`);
      for (const [name, body] of Object.entries(HOT_ROW_TRIGGERS.mysql)) {
        await queryRunner.query(`CREATE TRIGGER ${name} ${body}`);
      }
    } else {
      await queryRunner.query(`
        CREATE TABLE "order_daily_counts" (
          "day" TEXT NOT NULL,
          "status" VARCHAR(32) NOT NULL,
          "orders" BIGINT NOT NULL,
          PRIMARY KEY ("day", "status")
        )`);
      await queryRunner.query(
        `CREATE INDEX "idx_order_daily_counts_status_day" ON "order_daily_counts" ("status", "day")`,
      );
      for (const [name, body] of Object.entries(HOT_ROW_TRIGGERS.sqlite)) {
        await queryRunner.query(`CREATE TRIGGER ${name} ${body}`);
      }
    }
    await queryRunner.query(`
      INSERT INTO order_daily_counts (day, status, orders)
      SELECT DATE(created_at), status, COUNT(*) FROM orders GROUP BY DATE(created_at), status`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const trigger of ['orders_count_insert', 'orders_count_delete', 'orders_count_update']) {
      await queryRunner.query(`DROP TRIGGER ${trigger}`);
    }
    await queryRunner.query('DROP TABLE order_daily_counts');
  }
}
