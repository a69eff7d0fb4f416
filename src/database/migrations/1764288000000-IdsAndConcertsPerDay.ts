import { MigrationInterface, QueryRunner } from 'typeorm';
import { MYSQL_TRIGGERS, SQLITE_TRIGGERS } from './1764028800000-CountChangesOffTheWritePath';
import { MYSQL_UPDATE_TRIGGER, SQLITE_UPDATE_TRIGGER } from './1764201600000-OneCountRowPerStatusChange';
import { replaceMysqlTriggers, replaceSqliteTriggers } from './trigger-replacement';

/**
 * docs/API.md §14, a walk past a sale: each (day, status) of the per-day totals also holds the lowest and highest id
 * and concert id of its orders, so that a walk of a closed date range by id or by concert starts at its range's
 * highest and stops at its lowest instead of passing every newer order first (docs/adr/0020).
 *
 * The bounds only ever widen: an order placed, re-dated, moved to another status or concert widens those of its
 * (day, status), and none narrows them, so they always hold every order of theirs. The triggers append the order's id
 * and concert to the counting row they already write (one more pair of columns, no more rows), and the fold widens the
 * totals' bounds with them. A concert or id changed within the same day and status appends a row of its own, of
 * delta 0.
 *
 * An instance of an earlier version folds without widening the bounds, and would leave them narrower than their
 * orders. So the totals refuse, from this migration on, a fold that does not widen: each fold adds one to `widened`,
 * and a guard trigger rejects a change of `orders` that leaves it as it was (an earlier version's fold then fails and
 * is logged; counts stay exact, since reads sum what is not folded, and the upgraded instances fold).
 *
 * On a live database: the columns are added in place (instant, no copy), the guard put on the totals, the count
 * triggers replaced in one step, then the bounds of the orders already there are read (a consistent read, no lock on
 * `orders`) and written into the totals. Every order is covered: those written before the replacement by that read,
 * which starts after it (the replacement waits for every open write on `orders`), and those after by their counting
 * rows, which no earlier version's fold can take away once the guard is on.
 */
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
