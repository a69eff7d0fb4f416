import { MigrationInterface, QueryRunner } from 'typeorm';
import { COMBINED_FILTER_INDEXES } from './1763856000000-AddCombinedFilterIndexes';
import { HOT_ROW_TRIGGERS } from './1763942400000-AddDailyOrderCounts';
import { SORT_INDEXES } from './1763769600000-AddSortIndexes';
import { replaceMysqlTriggers, replaceSqliteTriggers } from './trigger-replacement';

/** Every table the triggers of this migration and of its `down` write. */
const COUNTING_TABLES = ['order_daily_counts', 'order_count_changes'];

/** Takes the counting off the writers' hot rows, online: the write path is not the listing's to slow down. */
const DROPPED_INDEXES = [...SORT_INDEXES, ...COMBINED_FILTER_INDEXES];

const COUNT_CHANGES_TABLE_MYSQL = `
  CREATE TABLE order_count_changes (
    id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    day DATE NOT NULL,
    status VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    delta TINYINT NOT NULL,
    PRIMARY KEY (id)
  ) ENGINE=InnoDB`;

/** The trigger bodies of MySQL/MariaDB; each writes only rows of its own. */
export const MYSQL_TRIGGERS: Record<string, string> = {
  orders_count_insert: `AFTER INSERT ON orders FOR EACH ROW
    INSERT INTO order_count_changes (day, status, delta) VALUES (DATE(NEW.created_at), NEW.status, 1)`,
  orders_count_delete: `AFTER DELETE ON orders FOR EACH ROW
    INSERT INTO order_count_changes (day, status, delta) VALUES (DATE(OLD.created_at), OLD.status, -1)`,
  orders_count_update: `AFTER UPDATE ON orders FOR EACH ROW
    BEGIN
      IF DATE(NEW.created_at) <> DATE(OLD.created_at) OR NEW.status <> OLD.status THEN
        INSERT INTO order_count_changes (day, status, delta)
          VALUES (DATE(OLD.created_at), OLD.status, -1), (DATE(NEW.created_at), NEW.status, 1);
      END IF;
    END`,
};

export const SQLITE_TRIGGERS: Record<string, string> = {
  orders_count_insert: `AFTER INSERT ON orders BEGIN
    INSERT INTO order_count_changes (day, status, delta) VALUES (date(NEW.created_at), NEW.status, 1);
  END`,
  orders_count_delete: `AFTER DELETE ON orders BEGIN
    INSERT INTO order_count_changes (day, status, delta) VALUES (date(OLD.created_at), OLD.status, -1);
  END`,
  orders_count_update: `AFTER UPDATE ON orders
    WHEN date(NEW.created_at) <> date(OLD.created_at) OR NEW.status <> OLD.status BEGIN
    INSERT INTO order_count_changes (day, status, delta)
      VALUES (date(OLD.created_at), OLD.status, -1), (date(NEW.created_at), NEW.status, 1);
  END`,
};

/** Folds every change into the per-day totals at once: only `down` does this, with the old triggers back in place. */
const foldAll = (upsert: string) => `
  INSERT INTO order_daily_counts (day, status, orders)
  SELECT day, status, SUM(delta) FROM order_count_changes WHERE true GROUP BY day, status ${upsert}`;

export class CountChangesOffTheWritePath1764028800000 implements MigrationInterface {
  name = 'CountChangesOffTheWritePath1764028800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type !== 'mysql') {
      // SQLite's DDL is transactional: the whole migration is one step for every other connection.
      await queryRunner.query(`
        CREATE TABLE "order_count_changes" (
          "id" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
          "day" TEXT NOT NULL,
          "status" VARCHAR(32) NOT NULL,
          "delta" INTEGER NOT NULL
        )`);
      await replaceSqliteTriggers(queryRunner, SQLITE_TRIGGERS);
      for (const { name } of DROPPED_INDEXES) await queryRunner.query(`DROP INDEX ${name}`);
      return;
    }
    // Waiting on the metadata lock behind a long transaction would stall every writer queued behind this one: give up
    // instead, and let the operator run the migration again.
    await queryRunner.query('SET SESSION lock_wait_timeout = 10');
    await queryRunner.query(COUNT_CHANGES_TABLE_MYSQL);
    await replaceMysqlTriggers(queryRunner, MYSQL_TRIGGERS, COUNTING_TABLES);
    await queryRunner.query(
      `ALTER TABLE orders ${DROPPED_INDEXES.map(({ name }) => `DROP INDEX ${name}`).join(', ')}, ALGORITHM=INPLACE, LOCK=NONE`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type === 'mysql';
    if (mysql) {
      await queryRunner.query(
        `ALTER TABLE orders ${DROPPED_INDEXES.map(({ name, columns }) => `ADD INDEX ${name} (${columns})`).join(', ')}, ALGORITHM=INPLACE, LOCK=NONE`,
      );
      await replaceMysqlTriggers(queryRunner, HOT_ROW_TRIGGERS.mysql, COUNTING_TABLES);
      // With the old triggers in place no change is appended any more; what is left is folded in one statement.
      await queryRunner.query(foldAll('ON DUPLICATE KEY UPDATE orders = orders + VALUES(orders)'));
    } else {
      for (const { name, columns } of DROPPED_INDEXES)
        await queryRunner.query(`CREATE INDEX ${name} ON orders (${columns})`);
      await replaceSqliteTriggers(queryRunner, HOT_ROW_TRIGGERS.sqlite);
      await queryRunner.query(foldAll('ON CONFLICT (day, status) DO UPDATE SET orders = orders + excluded.orders'));
    }
    await queryRunner.query('DROP TABLE order_count_changes');
  }
}
