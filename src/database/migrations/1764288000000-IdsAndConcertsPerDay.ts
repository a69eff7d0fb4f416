import { MigrationInterface, QueryRunner } from 'typeorm';
import { MYSQL_TRIGGERS, SQLITE_TRIGGERS } from './1764028800000-CountChangesOffTheWritePath';
import { MYSQL_UPDATE_TRIGGER, SQLITE_UPDATE_TRIGGER } from './1764201600000-OneCountRowPerStatusChange';
import { replaceMysqlTriggers, replaceSqliteTriggers } from './trigger-replacement';

/** Each (day, status) of the totals also holds its orders' lowest and highest id and concert id, where a walk of a
 * closed range starts and stops (docs/adr/0020); bounds only widen, and a guard refuses a fold that does not widen. */
const BOUND_COLUMNS = ['first_id', 'last_id', 'lowest_concert_id', 'highest_concert_id'];

const GUARD_MESSAGE = 'a fold that does not widen the order bounds (an earlier version): docs/adr/0020';
const MYSQL_GUARDS: Record<string, string> = {
  order_daily_counts_widened_insert: `BEFORE INSERT ON order_daily_counts FOR EACH ROW
    IF NEW.orders <> 0 AND NEW.widened = 0 THEN
      SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '${GUARD_MESSAGE}';
    END IF`,
  order_daily_counts_widened_update: `BEFORE UPDATE ON order_daily_counts FOR EACH ROW
    IF NEW.orders <> OLD.orders AND NEW.widened = OLD.widened THEN
      SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '${GUARD_MESSAGE}';
    END IF`,
};
const SQLITE_GUARDS: Record<string, string> = {
  order_daily_counts_widened_insert: `BEFORE INSERT ON order_daily_counts
    WHEN NEW.orders <> 0 AND NEW.widened = 0 BEGIN SELECT RAISE(ABORT, '${GUARD_MESSAGE}'); END`,
  order_daily_counts_widened_update: `BEFORE UPDATE ON order_daily_counts
    WHEN NEW.orders <> OLD.orders AND NEW.widened = OLD.widened BEGIN SELECT RAISE(ABORT, '${GUARD_MESSAGE}'); END`,
};

const MYSQL_TRIGGER_BODIES: Record<string, string> = {
  orders_count_insert: `AFTER INSERT ON orders FOR EACH ROW
    INSERT INTO order_count_changes (day, status, delta, order_id, concert_id)
      VALUES (DATE(NEW.created_at), NEW.status, 1, NEW.id, NEW.concert_id)`,
  orders_count_update: `AFTER UPDATE ON orders FOR EACH ROW
    BEGIN
      IF DATE(NEW.created_at) <> DATE(OLD.created_at) THEN
        INSERT INTO order_count_changes (day, status, delta, order_id, concert_id)
          VALUES (DATE(OLD.created_at), OLD.status, -1, NULL, NULL),
                 (DATE(NEW.created_at), NEW.status, 1, NEW.id, NEW.concert_id);
      ELSE
        IF NEW.status <> OLD.status THEN
          INSERT INTO order_count_moves (day, from_status, to_status, order_id, concert_id)
            VALUES (DATE(NEW.created_at), OLD.status, NEW.status, NEW.id, NEW.concert_id);
        ELSEIF NEW.id <> OLD.id OR NEW.concert_id <> OLD.concert_id THEN
          INSERT INTO order_count_changes (day, status, delta, order_id, concert_id)
            VALUES (DATE(NEW.created_at), NEW.status, 0, NEW.id, NEW.concert_id);
        END IF;
      END IF;
    END`,
};

/** SQLite's trigger bodies have no IF: each statement selects its row only when its case applies. */
const SQLITE_TRIGGER_BODIES: Record<string, string> = {
  orders_count_insert: `AFTER INSERT ON orders BEGIN
    INSERT INTO order_count_changes (day, status, delta, order_id, concert_id)
      VALUES (date(NEW.created_at), NEW.status, 1, NEW.id, NEW.concert_id);
  END`,
  orders_count_update: `AFTER UPDATE ON orders
    WHEN date(NEW.created_at) <> date(OLD.created_at) OR NEW.status <> OLD.status OR NEW.id <> OLD.id
      OR NEW.concert_id <> OLD.concert_id BEGIN
    INSERT INTO order_count_changes (day, status, delta, order_id, concert_id)
      SELECT date(OLD.created_at), OLD.status, -1, NULL, NULL WHERE date(NEW.created_at) <> date(OLD.created_at)
      UNION ALL SELECT date(NEW.created_at), NEW.status, 1, NEW.id, NEW.concert_id
        WHERE date(NEW.created_at) <> date(OLD.created_at)
      UNION ALL SELECT date(NEW.created_at), NEW.status, 0, NEW.id, NEW.concert_id
        WHERE date(NEW.created_at) = date(OLD.created_at) AND NEW.status = OLD.status;
    INSERT INTO order_count_moves (day, from_status, to_status, order_id, concert_id)
      SELECT date(NEW.created_at), OLD.status, NEW.status, NEW.id, NEW.concert_id
      WHERE date(NEW.created_at) = date(OLD.created_at) AND NEW.status <> OLD.status;
  END`,
};

const WRITTEN_TABLES = ['order_count_changes', 'order_count_moves'];

/** The bounds of the orders there are, per (day, status), merged into the totals' (a row is added where none is). */
async function writeBoundsOfOrders(queryRunner: QueryRunner, mysql: boolean): Promise<void> {
  const bounds = (await queryRunner.query(`
    SELECT ${mysql ? "DATE_FORMAT(created_at, '%Y-%m-%d')" : 'date(created_at)'} AS day, status,
      MIN(id) AS firstId, MAX(id) AS lastId, MIN(concert_id) AS lowestConcertId, MAX(concert_id) AS highestConcertId
    FROM orders GROUP BY ${mysql ? 'DATE(created_at)' : 'date(created_at)'}, status`)) as Array<
    Record<'day' | 'status', string> & Record<'firstId' | 'lastId' | 'lowestConcertId' | 'highestConcertId', number>
  >;
  const widen = mysql
    ? `ON DUPLICATE KEY UPDATE first_id = LEAST(COALESCE(first_id, VALUES(first_id)), VALUES(first_id)),
        last_id = GREATEST(COALESCE(last_id, VALUES(last_id)), VALUES(last_id)),
        lowest_concert_id = LEAST(COALESCE(lowest_concert_id, VALUES(lowest_concert_id)), VALUES(lowest_concert_id)),
        highest_concert_id = GREATEST(COALESCE(highest_concert_id, VALUES(highest_concert_id)), VALUES(highest_concert_id))`
    : `ON CONFLICT (day, status) DO UPDATE SET first_id = min(COALESCE(first_id, excluded.first_id), excluded.first_id),
        last_id = max(COALESCE(last_id, excluded.last_id), excluded.last_id),
        lowest_concert_id = min(COALESCE(lowest_concert_id, excluded.lowest_concert_id), excluded.lowest_concert_id),
        highest_concert_id = max(COALESCE(highest_concert_id, excluded.highest_concert_id), excluded.highest_concert_id)`;
  // A few thousand (day, status) rows at most; in chunks, so that no statement grows with the table's age.
  for (let start = 0; start < bounds.length; start += 500) {
    const chunk = bounds.slice(start, start + 500);
    await queryRunner.query(
      `INSERT INTO order_daily_counts (day, status, orders, ${BOUND_COLUMNS.join(', ')})
       VALUES ${chunk.map(() => '(?, ?, 0, ?, ?, ?, ?)').join(', ')} ${widen}`,
      chunk.flatMap((row) => [row.day, row.status, row.firstId, row.lastId, row.lowestConcertId, row.highestConcertId]),
    );
  }
}

export class IdsAndConcertsPerDay1764288000000 implements MigrationInterface {
  name = 'IdsAndConcertsPerDay1764288000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type === 'mysql';
    if (mysql) {
      // As in CountChangesOffTheWritePath: give up rather than queue every writer behind a long transaction's lock.
      await queryRunner.query('SET SESSION lock_wait_timeout = 10');
      await queryRunner.query(
        `ALTER TABLE order_daily_counts ${BOUND_COLUMNS.map((column) => `ADD COLUMN ${column} BIGINT UNSIGNED NULL`).join(', ')},
         ADD COLUMN widened BIGINT UNSIGNED NOT NULL DEFAULT 0, ALGORITHM=INSTANT`,
      );
      for (const [name, body] of Object.entries(MYSQL_GUARDS))
        await queryRunner.query(`CREATE TRIGGER ${name} ${body}`);
      for (const table of WRITTEN_TABLES) {
        await queryRunner.query(
          `ALTER TABLE ${table} ADD COLUMN order_id BIGINT UNSIGNED NULL, ADD COLUMN concert_id BIGINT UNSIGNED NULL, ALGORITHM=INSTANT`,
        );
      }
      await replaceMysqlTriggers(queryRunner, MYSQL_TRIGGER_BODIES, WRITTEN_TABLES);
    } else {
      for (const column of BOUND_COLUMNS)
        await queryRunner.query(`ALTER TABLE order_daily_counts ADD COLUMN ${column} BIGINT NULL`);
      await queryRunner.query('ALTER TABLE order_daily_counts ADD COLUMN widened BIGINT NOT NULL DEFAULT 0');
      for (const [name, body] of Object.entries(SQLITE_GUARDS))
        await queryRunner.query(`CREATE TRIGGER ${name} ${body}`);
      for (const table of WRITTEN_TABLES) {
        await queryRunner.query(`ALTER TABLE ${table} ADD COLUMN order_id BIGINT NULL`);
        await queryRunner.query(`ALTER TABLE ${table} ADD COLUMN concert_id BIGINT NULL`);
      }
      await replaceSqliteTriggers(queryRunner, SQLITE_TRIGGER_BODIES);
    }
    await writeBoundsOfOrders(queryRunner, mysql);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type === 'mysql';
    for (const name of Object.keys(MYSQL_GUARDS)) await queryRunner.query(`DROP TRIGGER ${name}`);
    if (mysql) {
      await replaceMysqlTriggers(
        queryRunner,
        { orders_count_insert: MYSQL_TRIGGERS.orders_count_insert, orders_count_update: MYSQL_UPDATE_TRIGGER },
        WRITTEN_TABLES,
      );
      for (const table of WRITTEN_TABLES)
        await queryRunner.query(`ALTER TABLE ${table} DROP COLUMN order_id, DROP COLUMN concert_id`);
      await queryRunner.query(
        `ALTER TABLE order_daily_counts ${[...BOUND_COLUMNS, 'widened'].map((column) => `DROP COLUMN ${column}`).join(', ')}`,
      );
      return;
    }
    await replaceSqliteTriggers(queryRunner, {
      orders_count_insert: SQLITE_TRIGGERS.orders_count_insert,
      orders_count_update: SQLITE_UPDATE_TRIGGER,
    });
    for (const table of WRITTEN_TABLES) {
      await queryRunner.query(`ALTER TABLE ${table} DROP COLUMN order_id`);
      await queryRunner.query(`ALTER TABLE ${table} DROP COLUMN concert_id`);
    }
    for (const column of [...BOUND_COLUMNS, 'widened'])
      await queryRunner.query(`ALTER TABLE order_daily_counts DROP COLUMN ${column}`);
  }
}
