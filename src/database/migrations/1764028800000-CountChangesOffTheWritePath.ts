import { MigrationInterface, QueryRunner } from 'typeorm';
import { COMBINED_FILTER_INDEXES } from './1763856000000-AddCombinedFilterIndexes';
import { HOT_ROW_TRIGGERS } from './1763942400000-AddDailyOrderCounts';
import { SORT_INDEXES } from './1763769600000-AddSortIndexes';
import { replaceMysqlTriggers, replaceSqliteTriggers } from './trigger-replacement';

/** Every table the triggers of this migration and of its `down` write. */
const COUNTING_TABLES = ['order_daily_counts', 'order_count_changes'];

/**
 * docs/API.md §7, "the write path is not the listing's to slow down". Converts a
 * database online, while the order services keep writing:
 *
 * 1. Counting without a hot row. The triggers no longer update the one
 *    `order_daily_counts` row of (today, status) that every concurrent writer
 *    of a sale also updates, and waits for until it commits. Each change of an
 *    order's (day, status) is appended instead as a row of its own to
 *    `order_count_changes` (a fresh auto-increment key: no other writer ever
 *    touches it), and the service folds those rows into `order_daily_counts`
 *    in the background (`OrderCountFolding`). A total is the per-day totals
 *    plus the not yet folded changes, summed in one statement, so it is exact
 *    at every moment: a fold moves rows from one table to the other in one
 *    transaction. Each trigger is replaced in one step (MariaDB's `CREATE OR
 *    REPLACE TRIGGER`; on MySQL under `LOCK TABLES`, for a moment), and a
 *    write counted by the old trigger or by the new one is counted exactly
 *    once either way, because reads sum both tables.
 * 2. Only the indexes that pay for themselves. The 11 sort-order indexes and
 *    the 2 member-and-filter indexes are dropped (each drop is in place, no
 *    copy, no lock held on `orders` but a moment's metadata lock); each cost
 *    the writers more than its query gains (docs/adr/0010). `orders` keeps:
 *    - `idx_orders_created` (created_at): the admin listing in its default
 *      order, and every date range;
 *    - `idx_orders_user_created` (user_id, created_at): every member's
 *      listing and its count, and the admin `userId` filter (with another
 *      filter too: a member's orders are few enough to filter);
 *    - `idx_orders_concert_created` (concert_id, created_at): the admin
 *      `consertId` filter and its count;
 *    - `idx_orders_status_created` (status, created_at): the admin
 *      `orderStatus` filter, and the partial first and last days of a
 *      date-range count.
 */
const DROPPED_INDEXES = [...SORT_INDEXES, ...COMBINED_FILTER_INDEXES];

const COUNT_CHANGES_TABLE_MYSQL = `
  CREATE TABLE order_count_changes (
    id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    day DATE NOT NULL,
    status VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    delta TINYINT NOT NULL,
    PRIMARY KEY (id)
  ) ENGINE=InnoDB`;

/**
 * The trigger bodies of MySQL/MariaDB; each writes only rows of its own. Exported so that a later migration that
 * replaces them can put them back in its `down`.
 */
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

/**
 * Folds every change into the per-day totals at once: only `down` does this, with the old triggers back in place.
 * (SQLite needs the WHERE so that it does not read its upsert clause as a join's ON.)
 */
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
    // Waiting on the metadata lock behind a long transaction would stall every writer queued behind this one:
    // give up instead, and let the operator run the migration again.
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
