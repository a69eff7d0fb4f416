// The sale bench's member probe (bench/modes/sale.ts, docs/API.md §19): a member places an order with its seats and
// pays for it on the primary (two transactions, as the ordering service does), then lists their orders through the
// service at once, over and over until told to stop. Each probe: whether the page held the order, paid; its time;
// and the primary's rows read and CPU ticks across the page's request, less those of as long again with no request. A worker thread with its own event loop,
// pinned where the bench asks. Plain JavaScript: a worker loads no TypeScript.
import { execFileSync } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { createConnection } from 'mysql2/promise';

const { baseUrl, primaryPort, database, members, primaryPid, cores } = workerData;
// This thread alone, where the bench pins the reading clients.
if (cores) execFileSync('taskset', ['--cpu-list', '--pid', cores, readlinkSync('/proc/thread-self').split('/').pop()]);

const PAID = '결제 완료';
const primary = await createConnection({ host: '127.0.0.1', port: primaryPort, user: 'root', database });
/** Rows the primary has read: every handler read, whichever index or scan. */
const rowsRead = async () => {
  const [rows] = await primary.query("SHOW GLOBAL STATUS LIKE 'Handler_read%'");
  return rows.reduce((sum, { Value }) => sum + Number(Value), 0);
};
/** The primary's CPU, in clock ticks (utime + stime of /proc/PID/stat). */
const cpuTicks = () => {
  const fields = readFileSync(`/proc/${primaryPid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);
};

let running = true;
parentPort.once('message', () => {
  running = false;
});
const probes = []; // [ms, seen, rowsRead, cpuTicks, withPosition]
for (let index = 0; running; index += 1) {
  // Every other probe hands back the payment's position, as a client told it by the ordering service would.
  const withPosition = index % 2 === 1;
  const { id, token } = members[index % members.length];
  await primary.query('BEGIN');
  const [placed] = await primary.query(
    `INSERT INTO orders (user_id, concert_id, total_price, status, created_at, updated_at)
     VALUES (?, 77, 110000, 'PAYMENT_PENDING', UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))`,
    [id],
  );
  await primary.query('INSERT INTO order_seats (order_id, seat_price_id, price) VALUES (?, 1, 55000), (?, 2, 55000)', [
    placed.insertId,
    placed.insertId,
  ]);
  await primary.query('COMMIT');
  await primary.query("UPDATE orders SET status = 'PAYMENT_COMPLETED', updated_at = UTC_TIMESTAMP(3) WHERE id = ?", [
    placed.insertId,
  ]);
  const [[{ gtid }]] = await primary.query('SELECT @@last_gtid AS gtid');
  const headers = { authorization: `Bearer ${token}`, ...(withPosition && { 'read-after-gtid': String(gtid) }) };
  const [rowsBefore, ticksBefore] = [await rowsRead(), cpuTicks()];
  const started = performance.now();
  const response = await fetch(`${baseUrl}/orders`, { headers });
  const body = await response.json();
  const ms = performance.now() - started;
  const [rowsAfter, ticksAfter] = [await rowsRead(), cpuTicks()];
  // As long again with no request: what the primary reads meanwhile for others (the count fold, the health checks).
  const [quietRows, quietTicks] = [await rowsRead(), cpuTicks()];
  await new Promise((resolve) => setTimeout(resolve, ms));
  const [quietRowsAfter, quietTicksAfter] = [await rowsRead(), cpuTicks()];
  const seen = response.status === 200 && body.elements.some((e) => e.orderId === placed.insertId && e.status === PAID);
  probes.push([
    ms,
    seen,
    rowsAfter - rowsBefore - (quietRowsAfter - quietRows),
    ticksAfter - ticksBefore - (quietTicksAfter - quietTicks),
    withPosition,
  ]);
}
await primary.end();
parentPort.postMessage(probes);
