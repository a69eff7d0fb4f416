import { MigrationInterface, QueryRunner } from 'typeorm';
import { MYSQL_TRIGGERS, SQLITE_TRIGGERS } from './1764028800000-CountChangesOffTheWritePath';
import { replaceMysqlTriggers, replaceSqliteTriggers } from './trigger-replacement';

/** A payment (a cancellation, a refund) appends one counting row instead of two. */
const MOVES_TABLE_MYSQL = `
  CREATE TABLE order_count_moves (
    id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    day DATE NOT NULL,
    from_status VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    to_status VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    PRIMARY KEY (id)
  ) ENGINE=InnoDB`;

export const MYSQL_UPDATE_TRIGGER = `AFTER UPDATE ON orders FOR EACH ROW
  BEGIN
    IF DATE(NEW.created_at) <> DATE(OLD.created_at) THEN
      INSERT INTO order_count_changes (day, status, delta)
        VALUES (DATE(OLD.created_at), OLD.status, -1), (DATE(NEW.created_at), NEW.status, 1);
    ELSEIF NEW.status <> OLD.status THEN
      INSERT INTO order_count_moves (day, from_status, to_status) VALUES (DATE(NEW.created_at), OLD.status, NEW.status);
    END IF;
  END`;

/** SQLite's trigger bodies have no IF: each statement selects its row only when its case applies. */
export const SQLITE_UPDATE_TRIGGER = `AFTER UPDATE ON orders
  WHEN date(NEW.created_at) <> date(OLD.created_at) OR NEW.status <> OLD.status BEGIN
  INSERT INTO order_count_changes (day, status, delta)
    SELECT date(OLD.created_at), OLD.status, -1 WHERE date(NEW.created_at) <> date(OLD.created_at)
    UNION ALL SELECT date(NEW.created_at), NEW.status, 1 WHERE date(NEW.created_at) <> date(OLD.created_at);
  INSERT INTO order_count_moves (day, from_status, to_status)
    SELECT date(NEW.created_at), OLD.status, NEW.status WHERE date(NEW.created_at) = date(OLD.created_at);
END`;

const WRITTEN_TABLES = ['order_count_changes', 'order_count_moves'];

export class OneCountRowPerStatusChange1764201600000 implements MigrationInterface {
  name = 'OneCountRowPerStatusChange1764201600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type !== 'mysql') {
      await queryRunner.query(`
        CREATE TABLE "order_count_moves" (
          "id" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
          "day" TEXT NOT NULL,
          "from_status" VARCHAR(32) NOT NULL,
          "to_status" VARCHAR(32) NOT NULL
        )`);
      await replaceSqliteTriggers(queryRunner, { orders_count_update: SQLITE_UPDATE_TRIGGER });
      return;
    }
    // As in CountChangesOffTheWritePath: give up rather than queue every writer behind a long transaction's lock.
    await queryRunner.query('SET SESSION lock_wait_timeout = 10');
    await queryRunner.query(MOVES_TABLE_MYSQL);
    await replaceMysqlTriggers(queryRunner, { orders_count_update: MYSQL_UPDATE_TRIGGER }, WRITTEN_TABLES);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type === 'mysql';
    const { orders_count_update } = mysql ? MYSQL_TRIGGERS : SQLITE_TRIGGERS;
    if (mysql) await replaceMysqlTriggers(queryRunner, { orders_count_update }, WRITTEN_TABLES);
    else await replaceSqliteTriggers(queryRunner, { orders_count_update });
    // No move is appended any more; those not folded yet become the two changes each stands for.
    await queryRunner.query(`
      INSERT INTO order_count_changes (day, status, delta)
      SELECT day, from_status, -1 FROM order_count_moves
      UNION ALL SELECT day, to_status, 1 FROM order_count_moves`);
    await queryRunner.query('DROP TABLE order_count_moves');
  }
}
