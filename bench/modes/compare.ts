import { DataSource } from 'typeorm';
import { toDatabaseConfig } from '../../src/config/database.config';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { generateOrders } from '../../src/orders/seeding/order-generator';
import { writeOrders } from '../../src/orders/seeding/order-writer';
import type { BenchContext } from '../lib/context';
import { drain, load, mean, median, peakRss, warmUp } from '../lib/measure';
import { start, stop, url, type ServerName } from '../lib/servers';

/**
 * The default mode: the service, the floor and the naive approach on the same
 * requests, interleaved; then the service on tables of 10k, 100k and 1M orders.
 */
export async function run(context: BenchContext, { naive = true, tableSizes: sizes = true } = {}): Promise<void> {
  await compare(context, naive);
  if (sizes) await tableSizes(context);
}

interface WindowStats {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function compare(context: BenchContext, withNaive: boolean): Promise<void> {
  const { seconds, rounds, connections, adminToken, scenarios } = context;
  const servers = {
    service: await start(context, 'service'),
    floor: await start(context, 'floor'),
    // The naive approach needs far longer than the service's 2 s budget on a million rows; let it finish.
    ...(withNaive && { naive: await start(context, 'naive', { DB_QUERY_TIMEOUT_MS: '300000', METRICS_PORT: '0' }) }),
  };
  const names = Object.keys(servers) as ServerName[];

  console.log('\n## Same answers\n');
  for (const scenario of scenarios) {
    const bodies = await Promise.all(
      names.map(async (name) =>
        (await fetch(url(name, scenario.query), { headers: { authorization: `Bearer ${scenario.token}` } })).text(),
      ),
    );
    const same = bodies.every((body) => body === bodies[0]);
    console.log(`- ${scenario.name}: ${same ? 'byte-identical' : 'DIFFERENT'} (${bodies[0].length} bytes)`);
    if (!same) process.exitCode = 1;
  }

  // The naive approach takes seconds a request at 1M orders: a warm-up would not settle, nor would it change that.
  for (const scenario of scenarios) {
    for (const name of names.filter((name) => name !== 'naive')) {
      process.stderr.write(`warm-up: ${scenario.name} on ${name}\n`);
      await warmUp(url(name, scenario.query), scenario.token, connections);
      await drain(context);
    }
  }
  const samples = new Map<string, Array<{ rps: number; p50: number; p99: number; errors: number }>>();
  for (let round = 0; round < rounds; round += 1) {
    for (const scenario of scenarios) {
      // A B C, then B C A, …: each server runs first, second and third in turn.
      const order = names.map((_, index) => names[(index + round) % names.length]);
      for (const name of order) {
        const key = `${scenario.name}|${name}`;
        process.stderr.write(`round ${round + 1}: ${scenario.name} on ${name}\n`);
        samples.set(key, [
          ...(samples.get(key) ?? []),
          await load(url(name, scenario.query), scenario.token, seconds, connections),
        ]);
        // Requests still running when the timed window closes must not slow the next server's window.
        await drain(context);
      }
    }
  }
  console.log(
    `\n## Throughput and latency (autocannon, ${connections} connections, ${rounds} × ${seconds} s each after a warm-up, interleaved)\n`,
  );
  console.log(
    '| scenario | service req/s | floor req/s | naive req/s | service / floor | service / naive | service p50 / p99 ms | floor p50 / p99 ms | naive p50 / p99 ms | failed (service / floor / naive) |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const scenario of scenarios) {
    const stats = Object.fromEntries(
      names.map((name) => {
        const runs = samples.get(`${scenario.name}|${name}`) ?? [];
        return [
          name,
          {
            rps: mean(runs.map((run) => run.rps)),
            p50: median(runs.map((run) => run.p50)),
            p99: Math.max(...runs.map((run) => run.p99)),
            errors: runs.reduce((sum, run) => sum + run.errors, 0),
          },
        ];
      }),
    ) as { service: WindowStats; floor: WindowStats; naive?: WindowStats };
    const ratio = (a: number, b: number | undefined) =>
      b === undefined ? '–' : b > 0 ? `${(a / b).toFixed(2)}×` : '∞';
    const { service, floor, naive } = stats;
    console.log(
      `| ${scenario.name} | ${service.rps.toFixed(0)} | ${floor.rps.toFixed(0)} | ${naive?.rps.toFixed(1) ?? '–'} | ${ratio(service.rps, floor.rps)} | ${ratio(service.rps, naive?.rps)} | ${service.p50} / ${service.p99} | ${floor.p50} / ${floor.p99} | ${naive ? `${naive.p50} / ${naive.p99}` : '–'} | ${service.errors} / ${floor.errors} / ${naive?.errors ?? '–'} |`,
    );
  }
  console.log(
    `\nPeak RSS of the service under this load: ${peakRss(servers.service).toFixed(0)} MB (floor ${peakRss(servers.floor).toFixed(0)} MB${servers.naive ? `, naive ${peakRss(servers.naive).toFixed(0)} MB` : ''}).`,
  );
  if (servers.naive) await stop(servers.naive);

  console.log('\n## Page depth (admin, unfiltered; 1 connection, p50 ms)\n');
  console.log('| page (offset) | service (deferred join) | floor, deferred join | floor, plain OFFSET |');
  console.log('|---|---|---|---|');
  for (const page of [1, 51, 501, 5001, 25001]) {
    const [service, floorDeferred, floorOffset] = [
      await load(url('service', `page=${page}`), adminToken, 3, 1),
      await load(url('floor', `page=${page}`), adminToken, 3, 1),
      await load(url('floor', `page=${page}&_paging=offset`), adminToken, 3, 1),
    ];
    console.log(`| ${page} (${(page - 1) * 20}) | ${service.p50} | ${floorDeferred.p50} | ${floorOffset.p50} |`);
  }
  await stop(servers.service);
  await stop(servers.floor);
}

/** The same service on 10k and 100k orders, in databases of their own, next to the 1M one. */
async function tableSizes(context: BenchContext): Promise<void> {
  const { env, connections, adminToken, userToken } = context;
  console.log('\n## Table size (service; 10 connections, 3 s; p50 / p99 ms)\n');
  console.log('| orders | user page 1 | admin page 1 | admin orderStatus |');
  console.log('|---|---|---|---|');
  for (const [orders, database] of [
    [10_000, `${env.DB_DATABASE}_10k`],
    [100_000, `${env.DB_DATABASE}_100k`],
    [1_000_000, env.DB_DATABASE],
  ] as const) {
    if (database !== env.DB_DATABASE) {
      const dataSource = new DataSource(
        buildDataSourceOptions(toDatabaseConfig({ ...env, DB_DATABASE: database }), 'maintenance'),
      );
      const admin = new DataSource(buildDataSourceOptions(toDatabaseConfig(env), 'maintenance'));
      await admin.initialize();
      await admin.query(`CREATE DATABASE IF NOT EXISTS \`${database}\``);
      await admin.destroy();
      await dataSource.initialize();
      await dataSource.runMigrations();
      const [{ total }] = await dataSource.query<Array<{ total: number }>>('SELECT COUNT(*) AS total FROM orders');
      if (Number(total) === 0) {
        await writeOrders(
          dataSource,
          generateOrders({
            orders,
            members: orders / 20,
            concerts: 500,
            days: 730,
            endMs: Date.UTC(2026, 10, 1),
            seed: 1,
          }),
        );
        await dataSource.query('ANALYZE TABLE orders, order_seats');
      }
      await dataSource.destroy();
    }
    const service = await start(context, 'service', { DB_DATABASE: database });
    const cells = [];
    for (const [token, query] of [
      [userToken, ''],
      [adminToken, ''],
      [adminToken, 'orderStatus=REFUNDED'],
    ]) {
      const result = await load(url('service', query), token, 3, connections);
      cells.push(`${result.p50} / ${result.p99}`);
    }
    console.log(`| ${orders.toLocaleString('en')} | ${cells.join(' | ')} |`);
    await stop(service);
  }
}
