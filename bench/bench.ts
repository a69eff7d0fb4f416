import 'dotenv/config';
import 'reflect-metadata';
import autocannon from 'autocannon';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { createPool } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { signDevelopmentToken } from '../src/auth/development-token';
import { Role } from '../src/auth/role';
import { toAuthConfig } from '../src/config/auth.config';
import { toDatabaseConfig } from '../src/config/database.config';
import { validateEnvironment } from '../src/config/environment';
import { buildDataSourceOptions } from '../src/database/data-source-options';
import { generateOrders } from '../src/orders/seeding/order-generator';
import { PRODUCTION_NODE_ARGUMENTS } from '../launchers/production-command';
import { waitUntilServing } from '../launchers/wait-for';
import { timePerLayer, type CpuProfile } from './profile-layers';
import { writeOrders } from '../src/orders/seeding/order-writer';
import { BARE_TABLES, compareWrites, PROJECT_SCHEMA } from './writes';

/**
 * Compares, interleaved in one run so that machine drift cancels out, the
 * service (as `npm run start:prod` starts it), the raw floor (bench/floor.ts) and the naive
 * TypeORM findAndCount (bench/naive.ts) on a MySQL database of 1M orders
 * (`npm run seed`). Prints markdown tables.
 *
 * With `--compare-node PATH`, compares instead the same build of the service
 * on the Node.js running the bench and on the one at PATH; with
 * `--observability-cost`, the same build with metrics on, off, and with traces
 * exported; each interleaved. With `--burst`, the burst curve: one instance
 * under 10 to 1,000 clients at once. With `--cpu`, CPU time per request of the
 * service, the floor and MariaDB, and MariaDB's per statement kind; with
 * `--profile`, where a user-page-1 request's time goes in each, by layer. With
 * `--compare-flags="FLAGS"`, the production command against the same with
 * extra Node.js flags added. With `--compare-builds=DIR,DIR,…`, the builds
 * (`dist/`) in those checkouts, each started as production starts it.
 */
const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '2' },
    connections: { type: 'string', default: '10' },
    'compare-node': { type: 'string' },
    'observability-cost': { type: 'boolean', default: false },
    burst: { type: 'boolean', default: false },
    cpu: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    'compare-flags': { type: 'string' },
    'compare-builds': { type: 'string' },
    // --writes: bench/writes.ts
    writes: { type: 'boolean', default: false },
    writers: { type: 'string', default: '16,64,256' },
    work: { type: 'string', default: '0,2' },
    preload: { type: 'string', default: '200000' },
    listings: { type: 'boolean', default: false },
  },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const env = validateEnvironment(process.env);
const auth = toAuthConfig(env);
const adminToken = signDevelopmentToken(auth, { sub: 1, role: Role.Admin }, '2h');
const userToken = signDevelopmentToken(auth, { sub: 1, role: Role.User }, '2h');

type ServerName = 'service' | 'floor' | 'naive';
const COMMANDS: Record<ServerName, string[]> = {
  service: PRODUCTION_NODE_ARGUMENTS,
  floor: ['-r', 'ts-node/register', 'bench/floor.ts'],
  naive: ['-r', 'ts-node/register', 'bench/naive.ts'],
};
const PORTS: Record<ServerName, number> = { service: 3910, floor: 3911, naive: 3912 };
const otherNode = values['compare-node'];

const SCENARIOS: Array<{ name: string; token: string; query: string }> = [
  { name: 'user page 1', token: userToken, query: '' },
  { name: 'user deep page (200)', token: userToken, query: 'page=200' },
  { name: 'admin page 1', token: adminToken, query: '' },
  { name: 'admin offset 500,000', token: adminToken, query: 'page=25001' },
  { name: 'admin userId', token: adminToken, query: 'userId=1' },
  { name: 'admin consertId', token: adminToken, query: 'consertId=7' },
  { name: 'admin orderStatus', token: adminToken, query: 'orderStatus=REFUNDED' },
  { name: 'admin one month', token: adminToken, query: 'startDate=2026-03-01&endDate=2026-03-31' },
  {
    name: 'admin all filters',
    token: adminToken,
    query: 'userId=1&consertId=7&orderStatus=PAYMENT_COMPLETED&startDate=2025-01-01&endDate=2026-10-31',
  },
  { name: 'admin size 100', token: adminToken, query: 'size=100' },
];

async function start(
  name: ServerName,
  extra: Record<string, string> = {},
  nodeArguments: string[] = [],
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...nodeArguments, ...COMMANDS[name]], {
    // `test` logs JSON lines as production does (development would pretty-print them); production itself would
    // refuse the development secret the bench signs its tokens with.
    env: { ...process.env, PORT: String(PORTS[name]), RATE_LIMIT_PER_MINUTE: '0', NODE_ENV: 'test', ...extra },
    stdio: 'ignore',
  });
  for (let attempt = 0; attempt < 300; attempt += 1) {
    try {
      const response = await fetch(`http://127.0.0.1:${PORTS[name]}/orders?size=1`, {
        headers: { authorization: `Bearer ${adminToken}` },
      });
      if (response.ok) return child;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${name} did not start`);
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const url = (name: ServerName, query: string) => `http://127.0.0.1:${PORTS[name]}/orders${query ? `?${query}` : ''}`;

/** CPU time a process has used so far in user and in system mode (all threads), in ms, from /proc/PID/stat. */
const CLOCK_TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || 100);
function cpuTimes(pid: number): { userMs: number; systemMs: number } {
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis are fixed.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const toMs = (ticks: string) => (Number(ticks) / CLOCK_TICKS_PER_SECOND) * 1000;
  return { userMs: toMs(fields[11]), systemMs: toMs(fields[12]) };
}
const cpuMs = (pid: number): number => {
  const { userMs, systemMs } = cpuTimes(pid);
  return userMs + systemMs;
};

async function load(target: string, token: string, duration: number, concurrency = connections) {
  const result = await autocannon({
    url: target,
    connections: concurrency,
    duration,
    timeout: 60,
    headers: { authorization: `Bearer ${token}` },
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    answered: result['2xx'],
  };
}

/** Waits until the database runs no query on `orders` any more (abandoned slow ones included). */
async function drain(): Promise<void> {
  const dataSource = await monitor();
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const [{ running }] = await dataSource.query<Array<{ running: number }>>(
      "SELECT COUNT(*) AS running FROM information_schema.PROCESSLIST WHERE COMMAND = 'Query' AND INFO LIKE '%orders%' AND INFO NOT LIKE '%PROCESSLIST%'",
    );
    if (Number(running) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
let monitorConnection: Promise<DataSource> | undefined;
/** A connection of the bench's own to the configured database, opened on first use. */
const monitor = () =>
  (monitorConnection ??= new DataSource(buildDataSourceOptions(toDatabaseConfig(env), 'maintenance')).initialize());

const median = (numbers: number[]) => [...numbers].sort((a, b) => a - b)[Math.floor(numbers.length / 2)];
const mean = (numbers: number[]) => numbers.reduce((sum, value) => sum + value, 0) / numbers.length;
const peakRss = (child: ChildProcess) =>
  Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

async function compare(): Promise<void> {
  // The naive approach needs far longer than the service's 2 s budget on a million rows; let it finish.
  const servers = {
    service: await start('service'),
    floor: await start('floor'),
    naive: await start('naive', { DB_QUERY_TIMEOUT_MS: '300000', METRICS_PORT: '0' }),
  };
  const names = Object.keys(servers) as ServerName[];

  console.log('\n## Same answers\n');
  for (const scenario of SCENARIOS) {
    const bodies = await Promise.all(
      names.map(async (name) =>
        (await fetch(url(name, scenario.query), { headers: { authorization: `Bearer ${scenario.token}` } })).text(),
      ),
    );
    const same = bodies.every((body) => body === bodies[0]);
    console.log(`- ${scenario.name}: ${same ? 'byte-identical' : 'DIFFERENT'} (${bodies[0].length} bytes)`);
    if (!same) process.exitCode = 1;
  }

  const samples = new Map<string, Array<{ rps: number; p50: number; p99: number; errors: number }>>();
  for (let round = 0; round < rounds; round += 1) {
    for (const scenario of SCENARIOS) {
      // A B C, then B C A, …: each server runs first, second and third in turn.
      const order = names.map((_, index) => names[(index + round) % names.length]);
      for (const name of order) {
        const key = `${scenario.name}|${name}`;
        process.stderr.write(`round ${round + 1}: ${scenario.name} on ${name}\n`);
        samples.set(key, [...(samples.get(key) ?? []), await load(url(name, scenario.query), scenario.token, seconds)]);
        // Requests still running when the timed window closes must not slow the next server's window.
        await drain();
      }
    }
  }
  console.log(
    `\n## Throughput and latency (autocannon, ${connections} connections, ${rounds} × ${seconds} s each, interleaved)\n`,
  );
  console.log(
    '| scenario | service req/s | floor req/s | naive req/s | service / floor | service / naive | service p50 / p99 ms | floor p50 / p99 ms | naive p50 / p99 ms | failed (service / floor / naive) |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const scenario of SCENARIOS) {
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
    ) as Record<ServerName, { rps: number; p50: number; p99: number; errors: number }>;
    const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : '∞');
    console.log(
      `| ${scenario.name} | ${stats.service.rps.toFixed(0)} | ${stats.floor.rps.toFixed(0)} | ${stats.naive.rps.toFixed(1)} | ${ratio(stats.service.rps, stats.floor.rps)} | ${ratio(stats.service.rps, stats.naive.rps)} | ${stats.service.p50} / ${stats.service.p99} | ${stats.floor.p50} / ${stats.floor.p99} | ${stats.naive.p50} / ${stats.naive.p99} | ${stats.service.errors} / ${stats.floor.errors} / ${stats.naive.errors} |`,
    );
  }
  console.log(
    `\nPeak RSS of the service under this load: ${peakRss(servers.service).toFixed(0)} MB (floor ${peakRss(servers.floor).toFixed(0)} MB, naive ${peakRss(servers.naive).toFixed(0)} MB).`,
  );
  await stop(servers.naive);

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
async function tableSizes(): Promise<void> {
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
    const service = await start('service', { DB_DATABASE: database });
    const cells = [];
    for (const [token, query] of [
      [userToken, ''],
      [adminToken, ''],
      [adminToken, 'orderStatus=REFUNDED'],
    ]) {
      const result = await load(url('service', query), token, 3);
      cells.push(`${result.p50} / ${result.p99}`);
    }
    console.log(`| ${orders.toLocaleString('en')} | ${cells.join(' | ')} |`);
    await stop(service);
  }
}

/** One way of starting the same build of the service, for a side-by-side comparison. */
interface Variant {
  label: string;
  port: number;
  node: string;
  env?: Record<string, string>;
  /** Node.js flags added before the production command's own. */
  flags?: string[];
  /** The checkout whose `dist/` runs; this one by default. */
  cwd?: string;
}

async function startVariant(variant: Variant): Promise<ChildProcess> {
  const child = spawn(variant.node, [...(variant.flags ?? []), ...PRODUCTION_NODE_ARGUMENTS], {
    cwd: variant.cwd,
    env: {
      ...process.env,
      PORT: String(variant.port),
      RATE_LIMIT_PER_MINUTE: '0',
      NODE_ENV: 'test',
      METRICS_PORT: '0',
      ...variant.env,
    },
    stdio: 'ignore',
  });
  await waitUntilServing(child, `http://127.0.0.1:${variant.port}`, { path: '/health/ready' });
  return child;
}

/**
 * The same scenarios on each variant, interleaved (the order rotates every
 * round): throughput, latency, ratio to the first variant, and peak memory.
 */
async function compareVariants(title: string, variants: Variant[], scenarioNames: string[]): Promise<void> {
  const children: ChildProcess[] = [];
  for (const variant of variants) children.push(await startVariant(variant));
  const picked = SCENARIOS.filter((scenario) => scenarioNames.includes(scenario.name));
  const samples = new Map<
    string,
    Array<{ rps: number; p50: number; p99: number; errors: number; cpuMs: number; answered: number }>
  >();
  for (let round = 0; round < rounds; round += 1) {
    for (const scenario of picked) {
      const order = variants.map((_, index) => variants[(index + round) % variants.length]);
      for (const variant of order) {
        process.stderr.write(`round ${round + 1}: ${scenario.name} on ${variant.label}\n`);
        const key = `${scenario.name}|${variant.label}`;
        const target = `http://127.0.0.1:${variant.port}/orders${scenario.query ? `?${scenario.query}` : ''}`;
        const pid = children[variants.indexOf(variant)].pid ?? 0;
        const cpuBefore = cpuMs(pid);
        const result = await load(target, scenario.token, seconds);
        samples.set(key, [...(samples.get(key) ?? []), { ...result, cpuMs: cpuMs(pid) - cpuBefore }]);
        await drain();
      }
    }
  }
  console.log(`\n## ${title} (${connections} connections, ${rounds} × ${seconds} s, interleaved)\n`);
  console.log(
    `| scenario | ${variants.map((variant) => `${variant.label} req/s (p50 / p99 ms; CPU ms/req)`).join(' | ')} | ${variants
      .slice(1)
      .map((variant) => `${variant.label} / ${variants[0].label} req/s; CPU`)
      .join(' | ')} | failed |`,
  );
  console.log(`|${'---|'.repeat(variants.length * 2 + 1)}`);
  for (const scenario of picked) {
    const stats = variants.map((variant) => {
      const runs = samples.get(`${scenario.name}|${variant.label}`) ?? [];
      return {
        rps: mean(runs.map((run) => run.rps)),
        p50: median(runs.map((run) => run.p50)),
        p99: Math.max(...runs.map((run) => run.p99)),
        errors: runs.reduce((sum, run) => sum + run.errors, 0),
        cpuPerRequest:
          runs.reduce((sum, run) => sum + run.cpuMs, 0) /
          Math.max(
            1,
            runs.reduce((sum, run) => sum + run.answered, 0),
          ),
      };
    });
    console.log(
      `| ${scenario.name} | ${stats.map((stat) => `${stat.rps.toFixed(0)} (${stat.p50} / ${stat.p99}; ${stat.cpuPerRequest.toFixed(3)})`).join(' | ')} | ${stats
        .slice(1)
        .map(
          (stat) =>
            `${(stat.rps / stats[0].rps).toFixed(3)}×; ${(stat.cpuPerRequest / stats[0].cpuPerRequest).toFixed(2)}×`,
        )
        .join(' | ')} | ${stats.map((stat) => stat.errors).join(' / ')} |`,
    );
  }
  console.log(
    `\nPeak RSS: ${variants.map((variant, index) => `${peakRss(children[index]).toFixed(0)} MB ${variant.label}`).join(', ')}.`,
  );
  for (const child of children) await stop(child);
}

/** An OTLP/HTTP collector that accepts and discards spans, so that exporting costs what it costs on the service's side. */
async function startSpanSink(): Promise<{ url: string; close: () => Promise<void> }> {
  const sink = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}'));
  });
  sink.listen(0, '127.0.0.1');
  await once(sink, 'listening');
  return {
    url: `http://127.0.0.1:${(sink.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => sink.close(() => resolve())),
  };
}

async function compareObservabilityCost(): Promise<void> {
  const sink = await startSpanSink();
  await compareVariants(
    'What metrics and tracing cost',
    [
      { label: 'metrics on', port: 3920, node: process.execPath, env: { METRICS_PORT: '3930' } },
      { label: 'metrics off', port: 3921, node: process.execPath, env: { METRICS_PORT: '0' } },
      {
        label: 'metrics on, tracing exported',
        port: 3922,
        node: process.execPath,
        env: { METRICS_PORT: '3932', OTEL_EXPORTER_OTLP_ENDPOINT: sink.url },
      },
    ],
    ['user page 1', 'admin page 1'],
  );
  await sink.close();
}

/**
 * One instance as production starts it, hit by `clients` requests at once (each its own connection), twice per
 * level: how many it answers per second, how long they wait, how many it refuses as busy, what memory it takes.
 */
async function burstCurve(): Promise<void> {
  const levels = [10, 50, 100, 200, 500, 1000];
  const variant: Variant = { label: 'service', port: 3940, node: process.execPath, env: { METRICS_PORT: '0' } };
  const child = await startVariant(variant);
  const target = `http://127.0.0.1:${variant.port}/orders`;
  console.log(
    `\n## Burst curve (user page 1, ${env.DB_POOL_SIZE} connections, deadline ${env.DB_QUERY_TIMEOUT_MS} ms; each level twice)\n`,
  );
  console.log(
    '| clients at once | answered per second | p50 ms | p99 ms | 503 busy | 503 other | other failures | peak RSS MB |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const clients of levels) {
    const latencies: number[] = [];
    const outcomes = new Map<string, number>();
    let elapsedMs = 0;
    for (let round = 0; round < 2; round += 1) {
      const started = Date.now();
      await Promise.all(
        Array.from({ length: clients }, async () => {
          const sent = Date.now();
          const outcome = await fetch(target, {
            headers: { authorization: `Bearer ${userToken}`, connection: 'close' },
          }).then(
            async (response) => {
              const body = await response.text();
              return response.status === 503 && body.includes('/problems/service-busy')
                ? 'busy'
                : String(response.status);
            },
            (error: Error & { cause?: { code?: string } }) => error.cause?.code ?? error.name,
          );
          latencies.push(Date.now() - sent);
          outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
        }),
      );
      elapsedMs += Date.now() - started;
      await drain();
    }
    latencies.sort((a, b) => a - b);
    const at = (share: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * share))];
    const ok = outcomes.get('200') ?? 0;
    const busy = outcomes.get('busy') ?? 0;
    const other503 = outcomes.get('503') ?? 0;
    const failures = 2 * clients - ok - busy - other503;
    console.log(
      `| ${clients} | ${((ok / elapsedMs) * 1000).toFixed(0)} | ${at(0.5)} | ${at(0.99)} | ${((busy / (2 * clients)) * 100).toFixed(1)} % | ${other503} | ${failures} | ${peakRss(child).toFixed(0)} |`,
    );
  }
  await stop(child);
}

/** The database server's own process, to read its CPU time; the bench runs next to it. */
async function databasePid(): Promise<number> {
  const [{ file }] = await (await monitor()).query<Array<{ file: string }>>('SELECT @@pid_file AS file');
  return Number(readFileSync(file, 'utf8').trim());
}

/**
 * CPU time per answered request of the service and of the floor, and of
 * MariaDB while each is loaded, over the same interleaved windows; then
 * MariaDB's CPU per statement of each kind, each run alone from here at the
 * same concurrency.
 */
async function cpuPerRequest(): Promise<void> {
  const mariadb = await databasePid();
  const servers = { service: await start('service'), floor: await start('floor') };
  const names = Object.keys(servers) as Array<keyof typeof servers>;
  const picked = SCENARIOS.filter((scenario) =>
    ['user page 1', 'admin page 1', 'admin all filters'].includes(scenario.name),
  );
  const totals = new Map<string, { answered: number; ownMs: number; databaseMs: number; seconds: number }>();
  for (let round = 0; round < rounds; round += 1) {
    for (const scenario of picked) {
      const order = names.map((_, index) => names[(index + round) % names.length]);
      for (const name of order) {
        process.stderr.write(`round ${round + 1}: ${scenario.name} on ${name}\n`);
        const pid = servers[name].pid ?? 0;
        const [ownBefore, databaseBefore] = [cpuMs(pid), cpuMs(mariadb)];
        const result = await load(url(name, scenario.query), scenario.token, seconds);
        const key = `${scenario.name}|${name}`;
        const sum = totals.get(key) ?? { answered: 0, ownMs: 0, databaseMs: 0, seconds: 0 };
        totals.set(key, {
          answered: sum.answered + result.answered,
          ownMs: sum.ownMs + cpuMs(pid) - ownBefore,
          databaseMs: sum.databaseMs + cpuMs(mariadb) - databaseBefore,
          seconds: sum.seconds + seconds,
        });
        await drain();
      }
    }
  }
  console.log(`\n## CPU per request (${connections} connections, ${rounds} × ${seconds} s, interleaved)\n`);
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
  await statementCosts(mariadb);
}

/** MariaDB's CPU per statement, by kind, for the statements of user page 1 and admin page 1. */
async function statementCosts(mariadb: number): Promise<void> {
  const dataSource = await monitor();
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

const PROFILE_WARM_UP_REQUESTS = 1_000;
const PROFILED_REQUESTS = 8_000;
/** Microseconds on the monotonic clock, the one V8's profiles are stamped with. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/**
 * Where a user-page-1 request's time goes in the service and in the floor:
 * each runs under `--cpu-prof`, answers warm-up requests, then
 * PROFILED_REQUESTS at 10 connections; the self time of the samples taken
 * while those are served, by layer (bench/profile-layers.ts), next to each
 * process's user and system CPU time over the same requests from /proc.
 */
async function profileLayers(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'orders-bench-profile-'));
  const measured = new Map<ServerName, { layers: Map<string, number>; userMs: number; systemMs: number }>();
  const serve = (name: ServerName, amount: number) =>
    autocannon({ url: url(name, ''), connections, amount, headers: { authorization: `Bearer ${userToken}` } });
  try {
    for (const name of ['service', 'floor'] as const) {
      process.stderr.write(`profiling ${name}\n`);
      const child = await start(name, {}, ['--cpu-prof', `--cpu-prof-dir=${join(directory, name)}`]);
      const pid = child.pid ?? 0;
      await serve(name, PROFILE_WARM_UP_REQUESTS);
      const [from, before] = [monotonicUs(), cpuTimes(pid)];
      await serve(name, PROFILED_REQUESTS);
      const [to, after] = [monotonicUs(), cpuTimes(pid)];
      // The profile is written as the process exits.
      await stop(child);
      const [file] = readdirSync(join(directory, name));
      const profile = JSON.parse(readFileSync(join(directory, name, file), 'utf8')) as CpuProfile;
      measured.set(name, {
        layers: timePerLayer(profile, from, to, PROFILED_REQUESTS),
        userMs: (after.userMs - before.userMs) / PROFILED_REQUESTS,
        systemMs: (after.systemMs - before.systemMs) / PROFILED_REQUESTS,
      });
      await drain();
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  const [service, floor] = [measured.get('service'), measured.get('floor')];
  if (!service || !floor) return;
  const of = (layers: Map<string, number>, layer: string) => layers.get(layer) ?? 0;
  const layers = [...new Set([...service.layers.keys(), ...floor.layers.keys()])].sort(
    (a, b) => of(service.layers, b) - of(floor.layers, b) - (of(service.layers, a) - of(floor.layers, a)),
  );
  const total = (layers: Map<string, number>) => [...layers.values()].reduce((sum, ms) => sum + ms, 0);
  console.log(
    `\n## Where a user-page-1 request's time goes (${PROFILED_REQUESTS} requests after ${PROFILE_WARM_UP_REQUESTS} to warm up, ${connections} connections; self time in ms per request)\n`,
  );
  console.log('| part | service ms/request | floor ms/request | difference |');
  console.log('|---|---|---|---|');
  for (const layer of layers) {
    const [mine, floors] = [of(service.layers, layer), of(floor.layers, layer)];
    console.log(`| ${layer} | ${mine.toFixed(3)} | ${floors.toFixed(3)} | ${(mine - floors).toFixed(3)} |`);
  }
  const [busy, floorBusy] = [total(service.layers), total(floor.layers)];
  console.log(
    `| **busy in all** | **${busy.toFixed(3)}** | **${floorBusy.toFixed(3)}** | **${(busy - floorBusy).toFixed(3)}** |`,
  );
  console.log(
    `\nCPU time from /proc over the same requests, ms per request: service ${service.userMs.toFixed(3)} user + ${service.systemMs.toFixed(3)} system; floor ${floor.userMs.toFixed(3)} user + ${floor.systemMs.toFixed(3)} system. The sampler counts a thread descheduled inside a system call as busy in it, so rows can exceed /proc's time.`,
  );
}

async function main(): Promise<void> {
  if (values.writes) {
    const list = (text: string) => text.split(',').map(Number);
    await compareWrites([BARE_TABLES, PROJECT_SCHEMA], {
      connections: list(values.writers),
      workMs: list(values.work),
      rounds,
      seconds,
      preloadOrders: Number(values.preload),
      listings: values.listings,
    });
    return;
  }
  if (env.DB_TYPE !== 'mysql')
    throw new Error('The benchmark runs against MySQL: set DB_TYPE=mysql and the DB_* variables.');
  console.log(`Benchmark on ${env.DB_HOST}:${env.DB_PORT}/${env.DB_DATABASE}, node ${process.version}`);
  if (otherNode) {
    const version = spawnSync(otherNode, ['--version'], { encoding: 'utf8' }).stdout.trim();
    await compareVariants(
      `The same build on Node ${process.version} and Node ${version}`,
      [
        { label: `Node ${process.version}`, port: 3913, node: process.execPath },
        { label: `Node ${version}`, port: 3914, node: otherNode },
      ],
      ['user page 1', 'admin page 1', 'admin all filters', 'admin size 100'],
    );
  } else if (values['observability-cost']) {
    await compareObservabilityCost();
  } else if (values.burst) {
    await burstCurve();
  } else if (values.cpu) {
    await cpuPerRequest();
  } else if (values.profile) {
    await profileLayers();
  } else if (values['compare-builds']) {
    const directories = values['compare-builds'].split(',');
    await compareVariants(
      'Builds side by side',
      directories.map((cwd, index) => ({ label: basename(cwd), port: 3950 + index, node: process.execPath, cwd })),
      ['user page 1', 'admin page 1', 'admin all filters'],
    );
  } else if (values['compare-flags']) {
    const flags = values['compare-flags'].split(' ').filter(Boolean);
    await compareVariants(
      `The production command with and without ${flags.join(' ')}`,
      [
        { label: 'production', port: 3915, node: process.execPath },
        { label: `with ${flags.join(' ')}`, port: 3916, node: process.execPath, flags },
      ],
      ['user page 1', 'admin page 1', 'admin all filters', 'admin size 100'],
    );
  } else {
    await compare();
    await tableSizes();
  }
  if (monitorConnection) await (await monitorConnection).destroy();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
