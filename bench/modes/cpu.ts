import { readFileSync } from 'node:fs';
import { createPool } from 'mysql2/promise';
import type { BenchContext } from '../lib/context';
import { cpuMs, drain, load, peakRss, warmUp } from '../lib/measure';
import { start, stop, url } from '../lib/servers';

/** The database server's own process, to read its CPU time; the bench runs next to it. */
async function databasePid(context: BenchContext): Promise<number> {
  const [{ file }] = await (await context.monitor()).query<Array<{ file: string }>>('SELECT @@pid_file AS file');
  return Number(readFileSync(file, 'utf8').trim());
}

/**
 * CPU time per answered request of the service and of the floor, and of
 * MariaDB while each is loaded, over the same interleaved windows after a
 * warm-up of each; then
 * MariaDB's CPU per statement of each kind, each run alone from here at the
 * same concurrency.
 */
export async function run(context: BenchContext, rate?: number): Promise<void> {
  const { seconds, rounds, connections, scenarios } = context;
  const mariadb = await databasePid(context);
  const servers = { service: await start(context, 'service'), floor: await start(context, 'floor') };
  const names = Object.keys(servers) as Array<keyof typeof servers>;
  const picked = scenarios.filter((scenario) =>
    ['user page 1', 'admin page 1', 'admin all filters'].includes(scenario.name),
  );
  for (const scenario of picked) {
    for (const name of names) {
      process.stderr.write(`warm-up: ${scenario.name} on ${name}\n`);
      await warmUp(url(name, scenario.query), scenario.token, connections);
      await drain(context);
    }
  }
  const totals = new Map<string, { answered: number; ownMs: number; databaseMs: number; seconds: number }>();
  for (let round = 0; round < rounds; round += 1) {
    for (const scenario of picked) {
      const order = names.map((_, index) => names[(index + round) % names.length]);
      for (const name of order) {
        process.stderr.write(`round ${round + 1}: ${scenario.name} on ${name}\n`);
        const pid = servers[name].pid ?? 0;
        const [ownBefore, databaseBefore] = [cpuMs(pid), cpuMs(mariadb)];
        const result = await load(url(name, scenario.query), scenario.token, seconds, connections, rate);
        const key = `${scenario.name}|${name}`;
        const sum = totals.get(key) ?? { answered: 0, ownMs: 0, databaseMs: 0, seconds: 0 };
        totals.set(key, {
          answered: sum.answered + result.answered,
          ownMs: sum.ownMs + cpuMs(pid) - ownBefore,
          databaseMs: sum.databaseMs + cpuMs(mariadb) - databaseBefore,
          seconds: sum.seconds + seconds,
        });
        await drain(context);
      }
    }
  }
  const pace = rate === undefined ? 'each connection at once' : `${rate} requests/s offered`;
  console.log(
    `\n## CPU per request (${connections} connections, ${pace}, ${rounds} × ${seconds} s after a warm-up, interleaved)\n`,
  );
  console.log(
    '| scenario | service req/s | floor req/s | service / floor req/s | service CPU ms/req | floor CPU ms/req | service / floor CPU | MariaDB CPU ms/req (service) | MariaDB CPU ms/req (floor) |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const scenario of picked) {
    const [service, floor] = names.map((name) => totals.get(`${scenario.name}|${name}`)!);
    const perRequest = (ms: number, answered: number) => ms / Math.max(1, answered);
    console.log(
      `| ${scenario.name} | ${(service.answered / service.seconds).toFixed(0)} | ${(floor.answered / floor.seconds).toFixed(0)} | ${(service.answered / floor.answered).toFixed(2)}× | ${perRequest(service.ownMs, service.answered).toFixed(3)} | ${perRequest(floor.ownMs, floor.answered).toFixed(3)} | ${(perRequest(service.ownMs, service.answered) / perRequest(floor.ownMs, floor.answered)).toFixed(2)}× | ${perRequest(service.databaseMs, service.answered).toFixed(3)} | ${perRequest(floor.databaseMs, floor.answered).toFixed(3)} |`,
    );
  }
  console.log(
    `\nPeak RSS under this load: service ${peakRss(servers.service).toFixed(0)} MB, floor ${peakRss(servers.floor).toFixed(0)} MB.`,
  );
  for (const child of Object.values(servers)) await stop(child);
  await statementCosts(context, mariadb);
}

/** MariaDB's CPU per statement, by kind, for the statements of user page 1 and admin page 1. */
async function statementCosts(context: BenchContext, mariadb: number): Promise<void> {
  const { env, seconds, connections } = context;
  const dataSource = await context.monitor();
  const columns =
    'o.id, o.user_id AS userId, o.concert_id AS concertId, o.total_price AS totalPrice, o.status, o.created_at AS createdAt, o.updated_at AS updatedAt';
  const pageOf = (filter: string) =>
    `SELECT ${columns} FROM orders o INNER JOIN (SELECT id FROM orders ${filter} ORDER BY created_at DESC, id DESC LIMIT 20 OFFSET 0) p ON p.id = o.id ORDER BY o.created_at DESC, o.id DESC`;
  const memberPage = await dataSource.query<Array<{ id: number }>>(pageOf('WHERE user_id = 1'));
  const statements: Array<{ kind: string; sql: string; values: unknown[] }> = [
    { kind: 'page (member)', sql: pageOf('WHERE user_id = ?'), values: [1] },
    {
      kind: 'count (member: COUNT(*) over the index range)',
      sql: 'SELECT COUNT(*) AS total FROM orders WHERE user_id = ?',
      values: [1],
    },
    {
      kind: 'seats (20 orders, one IN)',
      sql: 'SELECT order_id, seat_price_id, price FROM order_seats WHERE order_id IN (?) ORDER BY order_id, seat_price_id',
      values: [memberPage.map((row) => row.id)],
    },
    { kind: 'page (admin, unfiltered)', sql: pageOf(''), values: [] },
    {
      kind: 'count (admin, unfiltered: per-day totals and unfolded changes)',
      sql: 'SELECT COALESCE(SUM(orders), 0) + (SELECT COALESCE(SUM(delta), 0) FROM order_count_changes) AS total FROM order_daily_counts',
      values: [],
    },
  ];
  const pool = createPool({
    host: env.DB_HOST,
    port: env.DB_PORT,
    user: env.DB_USERNAME,
    password: env.DB_PASSWORD,
    database: env.DB_DATABASE,
    connectionLimit: connections,
  });
  console.log(`\n## MariaDB CPU per statement (${connections} at once, ${seconds} s each)\n`);
  console.log('| statement | per second | MariaDB CPU ms per statement |');
  console.log('|---|---|---|');
  for (const statement of statements) {
    let done = 0;
    const until = Date.now() + seconds * 1000;
    const before = cpuMs(mariadb);
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (Date.now() < until) {
          await pool.query(statement.sql, statement.values);
          done += 1;
        }
      }),
    );
    console.log(
      `| ${statement.kind} | ${(done / seconds).toFixed(0)} | ${((cpuMs(mariadb) - before) / done).toFixed(3)} |`,
    );
  }
  await pool.end();
}
