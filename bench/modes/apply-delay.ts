import type { ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { REPLICATED_DATABASE, startReplicatedMysql } from '../../launchers/replication';

/** Percentile of sorted milliseconds. */
const percentile = (sorted: number[], share: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))];

/**
 * docs/adr/0016: how long after a member's payment commits an idle replica, started from deploy/mariadb/replica.cnf,
 * has applied it, measured as the request would wait for it (MASTER_GTID_WAIT on the replica right after the commit).
 * What DB_REPLICA_WAIT_MS is weighed against: a bound above this serves the member's page from the replica at once.
 */
export async function run({ probes }: { probes: number }): Promise<void> {
  const pair = await startReplicatedMysql();
  try {
    const primary = pair.root('primary');
    const replica = pair.root('replica');
    await primary.query(`USE ${REPLICATED_DATABASE}`);
    const waits: number[] = [];
    let late = 0;
    for (let probe = 0; probe < probes; probe += 1) {
      const [placed] = await primary.query<ResultSetHeader>(
        `INSERT INTO orders (user_id, concert_id, total_price, status, created_at, updated_at)
           VALUES (42, 7, 110000, 'PAYMENT_PENDING', UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))`,
      );
      await primary.query(
        'INSERT INTO order_seats (order_id, seat_price_id, price) VALUES (?, 1, 55000), (?, 2, 55000)',
        [placed.insertId, placed.insertId],
      );
      await primary.query("UPDATE orders SET status = 'PAYMENT_COMPLETED' WHERE id = ?", [placed.insertId]);
      const [[{ gtid }]] = await primary.query<RowDataPacket[]>('SELECT @@last_gtid AS gtid');
      const started = performance.now();
      const [[{ waited }]] = await replica.query<RowDataPacket[]>('SELECT MASTER_GTID_WAIT(?, 1) AS waited', [gtid]);
      waits.push(performance.now() - started);
      if (Number(waited) !== 0) late += 1;
    }
    const sorted = [...waits].sort((a, b) => a - b);
    const ms = (value: number) => value.toFixed(2);
    process.stdout.write(
      [
        `## Apply delay of an idle replica (${probes} orders placed with their seats and paid, three commits each)`,
        '',
        '| p50 ms | p95 ms | p99 ms | max ms | not applied within 1 s |',
        '|---|---|---|---|---|',
        `| ${ms(percentile(sorted, 0.5))} | ${ms(percentile(sorted, 0.95))} | ${ms(percentile(sorted, 0.99))} | ${ms(sorted.at(-1)!)} | ${late} |`,
        '',
      ].join('\n'),
    );
  } finally {
    await pair.stop();
  }
}
