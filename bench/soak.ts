import 'dotenv/config';
import 'reflect-metadata';
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DataSource } from 'typeorm';
import { signDevelopmentToken } from '../src/auth/development-token';
import { Role } from '../src/auth/role';
import { toAuthConfig } from '../src/config/auth.config';
import { toDatabaseConfig } from '../src/config/database.config';
import { validateEnvironment } from '../src/config/environment';
import { buildDataSourceOptions } from '../src/database/data-source-options';
import { generateOrders, randomSource } from '../src/orders/seeding/order-generator';
import { writeOrders } from '../src/orders/seeding/order-writer';
import { PRODUCTION_NODE_ARGUMENTS } from '../launchers/production-command';
import { waitUntilServing } from '../launchers/wait-for';
import { BENCH_NODE_FLAGS } from './lib/node-flags';
import { benchJwtSecret } from './lib/secret';

/**
 * Steady load against a MySQL-backed instance of the built service (as
 * `npm run start:prod` starts it, rate limit off) for --minutes, reporting per window: requests,
 * errors, p50/p99 latency and the service's resident memory.
 */
const USAGE =
  'Usage: DB_TYPE=mysql DB_...=... npm run soak -- [--minutes 10] [--connections 10] [--window 30] [--orders 100000]';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    window: { type: 'string', default: '30' },
    orders: { type: 'string', default: '100000' },
    port: { type: 'string', default: '3900' },
  },
});
const minutes = Number(values.minutes);
const connections = Number(values.connections);
const windowSeconds = Number(values.window);
const port = Number(values.port);
const MEMBERS = 5000;

benchJwtSecret();
const env = validateEnvironment(process.env);
if (env.DB_TYPE !== 'mysql') {
  console.error(`The soak runs against MySQL.\n${USAGE}`);
  process.exit(2);
}

function rssMegabytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

async function prepareDatabase(): Promise<void> {
  const dataSource = new DataSource(buildDataSourceOptions(toDatabaseConfig(env), 'maintenance'));
  await dataSource.initialize();
  await dataSource.runMigrations();
  const [{ total }] = await dataSource.query<Array<{ total: number }>>('SELECT COUNT(*) AS total FROM orders');
  if (Number(total) === 0) {
    const orders = Number(values.orders);
    console.log(`Seeding ${orders} orders…`);
    await writeOrders(
      dataSource,
      generateOrders({ orders, members: MEMBERS, concerts: 500, days: 730, endMs: Date.now(), seed: 1 }),
    );
  }
  await dataSource.destroy();
}

async function main(): Promise<void> {
  await prepareDatabase();
  const service = spawn(process.execPath, [...BENCH_NODE_FLAGS, ...PRODUCTION_NODE_ARGUMENTS], {
    // `test` logs JSON lines as production does; production itself would refuse the development secret.
    env: { ...process.env, PORT: String(port), RATE_LIMIT_PER_MINUTE: '0', NODE_ENV: 'test' },
    stdio: 'ignore',
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilServing(service, baseUrl, { path: '/health/ready', timeoutMs: 30_000 });

  const auth = toAuthConfig(env);
  const random = randomSource(7);
  const userTokens = Array.from({ length: 200 }, (_, index) =>
    signDevelopmentToken(auth, { sub: 1 + Math.floor((index * MEMBERS) / 200), role: Role.User }, '2h'),
  );
  const adminToken = signDevelopmentToken(auth, { sub: 1, role: Role.Admin }, '2h');
  const statuses = ['PAYMENT_COMPLETED', 'CANCELLED', 'REFUNDED', 'PAYMENT_PENDING'];
  // A mix like the clients': members paging their orders, the back office filtering and sorting.
  const nextRequest = (): { path: string; token: string } => {
    const roll = random();
    if (roll < 0.6) {
      return {
        path: `/orders?page=${1 + Math.floor(random() * 3)}&size=20`,
        token: userTokens[Math.floor(random() * userTokens.length)],
      };
    }
    const filters = [
      `page=${1 + Math.floor(random() * 50)}`,
      `size=${[20, 50, 100][Math.floor(random() * 3)]}`,
      random() < 0.5 ? `orderStatus=${statuses[Math.floor(random() * 4)]}` : '',
      random() < 0.3 ? `consertId=${1 + Math.floor(random() * 500)}` : '',
      random() < 0.3 ? 'startDate=2026-01-01&endDate=2026-06-30' : '',
    ].filter(Boolean);
    return { path: `/orders?${filters.join('&')}`, token: adminToken };
  };

  console.log(`Soak: ${minutes} min, ${connections} connections, windows of ${windowSeconds} s against ${baseUrl}`);
  console.log('window | requests | req/s | errors | non-2xx | p50 ms | p99 ms | RSS MB');
  const windows = Math.ceil((minutes * 60) / windowSeconds);
  let totalRequests = 0;
  let totalErrors = 0;
  let firstRss = Number.NaN;
  let lastRss = Number.NaN;
  const p99s: number[] = [];
  for (let index = 1; index <= windows; index += 1) {
    const result = await autocannon({
      url: baseUrl,
      connections,
      duration: windowSeconds,
      requests: [
        {
          setupRequest: (req) => {
            const { path, token } = nextRequest();
            return { ...req, path, headers: { authorization: `Bearer ${token}` } };
          },
        },
      ],
    });
    const rss = rssMegabytes(service.pid ?? 0);
    if (index === 1) firstRss = rss;
    lastRss = rss;
    const errors = result.errors + result.timeouts;
    totalRequests += result.requests.total;
    totalErrors += errors + result.non2xx;
    p99s.push(result.latency.p99);
    console.log(
      [
        `${index}/${windows}`,
        result.requests.total,
        result.requests.average.toFixed(0),
        errors,
        result.non2xx,
        result.latency.p50,
        result.latency.p99,
        rss.toFixed(1),
      ].join(' | '),
    );
  }
  service.kill('SIGTERM');
  const growth = ((lastRss - firstRss) / firstRss) * 100;
  console.log(
    `\nTotal: ${totalRequests} requests, ${totalErrors} errors or non-2xx; p99 ${Math.min(...p99s)}–${Math.max(...p99s)} ms; ` +
      `RSS ${firstRss.toFixed(1)} MB after the first window, ${lastRss.toFixed(1)} MB at the end (${growth >= 0 ? '+' : ''}${growth.toFixed(1)} %)`,
  );
  if (totalErrors > 0 || growth > 10) process.exit(1);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
