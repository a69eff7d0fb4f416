import 'dotenv/config';
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { signDevelopmentToken } from '../src/auth/development-token';
import { Role } from '../src/auth/role';
import { toAuthConfig } from '../src/config/auth.config';
import { validateEnvironment } from '../src/config/environment';
import { generationOf } from './lib/growth-servers';
import { createContext } from './lib/context';
import { benchJwtSecret } from './lib/secret';
import * as applyDelay from './modes/apply-delay';
import * as burst from './modes/burst';
import * as compare from './modes/compare';
import * as cpu from './modes/cpu';
import * as observabilityCost from './modes/observability-cost';
import * as profile from './modes/profile';
import * as shapes from './modes/shapes';
import * as exportsMode from './modes/exports';
import * as failover from './modes/failover';
import * as growth from './modes/growth';
import * as pages from './modes/pages';
import * as sale from './modes/sale';
import * as walks from './modes/walks';
import { compareBuilds, compareFlags, compareNode } from './modes/variants';
import { BARE_TABLES, compareWrites, PROJECT_SCHEMA, PROMOTED_REPLICA } from './modes/writes';

const USAGE = `npm run bench -- [MODE] [--seconds 5] [--rounds 2] [--connections 10]

Each mode runs its variants interleaved in one run, so that machine drift cancels out, and prints markdown tables.
  (none)                   the service, the raw floor (bench/floor.ts) and the naive TypeORM findAndCount
                           (bench/naive.ts) on a MySQL database of 1M orders (npm run seed), then table sizes;
                           --without-naive: the service and the floor alone (10M orders, where the naive
                           approach takes minutes a request)
  --compare-node PATH      the same build on this Node.js and on the one at PATH
  --compare-builds=D,D,… [--rate 400 [--at-once]] [--scenarios 'user page 1;admin page 1']
                           the builds (dist/) in those checkouts; with --rate, each window offered that many
                           requests a second instead of each connection's next as soon as its last is answered;
                           with --at-once, every build loaded in the same window rather than in turn, so that
                           the machine's drift falls on all alike
  --compare-flags="FLAGS"  the production command with and without extra Node.js flags
  --observability-cost     metrics on, off, and with traces exported
  --burst                  one instance under 10 to 1,000 clients at once
  --cpu [--rate 500]       CPU time per request of the service, the floor and MariaDB, and MariaDB's per statement;
                           with --rate, each window offered that many requests a second, so that MariaDB serves
                           both at the same pace
  --profile                where a user-page-1 request's time goes, by layer
  --shapes [--compare-builds=D,D]
                           every filter set × sort order × page 1 and 50 of the back-office, one client,
                           on this build or on each of those builds in turn
  --walks                  page 2, a deep page by offset and the same page by its next link (docs/API.md §13)
  --exports [--compare-builds=D,D [--sorts 'userId,asc;createdAt,desc' --export-seconds 24]]
                           every order as CSV, NDJSON and XLSX: rows/s, first byte, peak RSS; a cancelled and a
                           stalled export's statements (docs/API.md §13); or the rows/s of each of those builds
                           side by side, of every order or, with --sorts, of a CSV export in each of those
                           sorts read for --export-seconds
  --growth [--orders 1000000,10000000 --export-seconds 24 --sale-orders 1500000] [--writes --writers 64,256 --rounds 3]
                           docs/API.md §14: a primary and a replica per size, seeded once and kept
                           (BENCH_DATA_DIR, default ~/.cache/orders-service/bench-growth); every admin
                           shape, a member's pages and walks by next link at each size side by side, with
                           the ratio, the largest holding a sale's orders besides (planted once, kept;
                           0 for none); at the largest, an export in every sort and every shape on the
                           primary alone; the service's warnings; with --writes, then the sale's writes
                           on throw-away durable primaries holding the largest size, against the bare
                           tables (as --writes --preload <largest>)
  --growth --pages [--orders 1000000,10000000] [--compare-builds=D,D]
                           docs/API.md §22 on each growth pair: orders each sort's index passes per second and
                           the limit derived from it; pages by number (1, 50, 10 %, 50 %, 90 %, last) in every
                           sort, with and without a status and a date range; the statements of a jumped page;
                           with --compare-builds, the back-office's deep pages on each build side by side
  --sale [--orders 10000000 --writers 64 --shares 50,100 --sale-seconds 180 --apply-seconds 60 --window-redo-mb 2048,4096
          --pinnings pinned,unpinned --probe-seconds 30]
                           docs/API.md §18: on the growth pair of that size (its replica started from
                           deploy/mariadb/replica.cnf), the primary's full speed alone and the replica's apply
                           rate alone with the shipped settings, and with its redo log's size, applier threads
                           and flushing each at the server's default, the other way of flushing
                           once a second, then all three;
                           then a sale at each share of the full speed while one client reads replica-only
                           admin shapes and members' pages through the service: the lag, the reads, the sale;
                           with --window-redo-mb, each window once per replica redo log size, in turn;
                           each run pinned (primary and writers on CPU 0, replica, service and readers on
                           CPU 1, taskset) and then unpinned; members placing, paying for and listing an
                           order (docs/API.md §19), idle, with the replica held 3 s behind, and in each window
  --failover [--orders 10000000 --share 50 --instances 2 --writers 64]
                           docs/API.md §20: on a copy of the growth pair of that size, a sale at that share of
                           the primary's full speed, that many instances, members placing an order and listing
                           theirs, the back-office's pages and an export; the replica stops fetching, the primary
                           is killed, the replica promoted after 5 s and the sale moved to it, the old primary back
                           writable, then read-only: per second, pages current, stale and refused by type, silently
                           stale ones, ones served as current by a deposed server, lost and surviving positions;
                           the time to the first page read against the new primary and to every instance
                           following it; then the sale's full speed on the promoted server as promoted, with
                           the replicas' structures off, and on the bare tables
  --apply-delay [--probes 500]
                           how long after a payment commits an idle replica (deploy/mariadb/replica.cnf) has
                           applied it, as a request would wait for it: what DB_REPLICA_WAIT_MS is weighed against
  --writes [--writers 16,64,256 --work 0,2 --preload 200000 --redo-log-mb 1024 --listings --promoted]
                           what the listing's schema costs the order writers: a throw-away durable primary per
                           schema, each frozen during the other's rounds (redo logs the server's default unless
                           --redo-log-mb sizes them); with --promoted, a promoted replica's schema besides`;

async function main(): Promise<void> {
  benchJwtSecret();
  const { values } = parseArgs({
    options: {
      help: { type: 'boolean', default: false },
      seconds: { type: 'string', default: '5' },
      rounds: { type: 'string', default: '2' },
      connections: { type: 'string', default: '10' },
      'compare-node': { type: 'string' },
      'compare-builds': { type: 'string' },
      scenarios: { type: 'string' },
      rate: { type: 'string' },
      'at-once': { type: 'boolean', default: false },
      'compare-flags': { type: 'string' },
      'observability-cost': { type: 'boolean', default: false },
      burst: { type: 'boolean', default: false },
      cpu: { type: 'boolean', default: false },
      profile: { type: 'boolean', default: false },
      shapes: { type: 'boolean', default: false },
      walks: { type: 'boolean', default: false },
      exports: { type: 'boolean', default: false },
      writes: { type: 'boolean', default: false },
      writers: { type: 'string', default: '16,64,256' },
      work: { type: 'string', default: '0,2' },
      preload: { type: 'string', default: '200000' },
      'redo-log-mb': { type: 'string' },
      listings: { type: 'boolean', default: false },
      promoted: { type: 'boolean', default: false },
      growth: { type: 'boolean', default: false },
      pages: { type: 'boolean', default: false },
      sale: { type: 'boolean', default: false },
      failover: { type: 'boolean', default: false },
      share: { type: 'string', default: '50' },
      instances: { type: 'string', default: '2' },
      'apply-delay': { type: 'boolean', default: false },
      probes: { type: 'string', default: '500' },
      shares: { type: 'string', default: '50,100' },
      'sale-seconds': { type: 'string', default: '180' },
      'apply-seconds': { type: 'string', default: '60' },
      'window-redo-mb': { type: 'string', default: '' },
      pinnings: { type: 'string', default: 'pinned,unpinned' },
      'probe-seconds': { type: 'string', default: '30' },
      'without-naive': { type: 'boolean', default: false },
      orders: { type: 'string', default: '1000000,10000000' },
      'export-seconds': { type: 'string', default: '24' },
      'sale-orders': { type: 'string', default: '1500000' },
      sorts: { type: 'string' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const options = { seconds: Number(values.seconds), rounds: Number(values.rounds) };
  const list = (text: string) => text.split(',').map(Number);
  // Its own throw-away primary: the configured database is not touched.
  const writes = (preloadOrders: number) =>
    compareWrites([BARE_TABLES, PROJECT_SCHEMA, ...(values.promoted ? [PROMOTED_REPLICA] : [])], {
      ...options,
      connections: list(values.writers),
      workMs: list(values.work),
      preloadOrders,
      redoLogMb: values['redo-log-mb'] === undefined ? undefined : Number(values['redo-log-mb']),
      listings: values.listings,
    });
  if (values['apply-delay']) {
    await applyDelay.run({ probes: Number(values.probes) });
    return;
  }
  // One size: the largest the growth bench seeds unless told.
  const largest = Math.max(...list(values.orders));
  const readerTokens = (probeMembers: number) => {
    const auth = toAuthConfig(validateEnvironment(process.env));
    const member = (sub: number) => signDevelopmentToken(auth, { sub, role: Role.User }, '4h');
    // 64 members spread over the seeded ones, past member 1, the seed's busiest (read on its own).
    const { members } = generationOf(largest);
    return {
      admin: signDevelopmentToken(auth, { sub: 1, role: Role.Admin }, '4h'),
      members: Array.from({ length: 64 }, (_, index) => member(2 + Math.floor((index * (members - 2)) / 64))),
      busiest: member(1),
      // Past the seeded members: their pages hold the probes' orders alone.
      probeMembers: Array.from({ length: probeMembers }, (_, index) => ({
        id: members + 1 + index,
        token: member(members + 1 + index),
      })),
    };
  };
  // The sale of docs/API.md §18 is 64 writers; --writers names another number.
  const saleWriters = values.writers === '16,64,256' ? 64 : Math.max(...list(values.writers));
  if (values.failover) {
    // Its pages' probe members each stay under a page of 100 orders through the run.
    await failover.run(readerTokens(128), {
      orders: largest,
      writers: saleWriters,
      share: Number(values.share),
      instances: Number(values.instances),
    });
    return;
  }
  if (values.sale) {
    await sale.run(readerTokens(16), {
      orders: largest,
      writers: saleWriters,
      shares: list(values.shares),
      saleSeconds: Number(values['sale-seconds']),
      applySeconds: Number(values['apply-seconds']),
      windowRedoLogBytes: values['window-redo-mb'] ? list(values['window-redo-mb']).map((mb) => mb * 2 ** 20) : [],
      pinnings: values.pinnings.split(',').map((pinning) => {
        if (pinning !== 'pinned' && pinning !== 'unpinned') throw new Error(`--pinnings: ${pinning}?`);
        return pinning;
      }),
      probeSeconds: Number(values['probe-seconds']),
    });
    return;
  }
  if (values.growth) {
    // Servers of its own, seeded once and kept: the configured database is not touched.
    const auth = toAuthConfig(validateEnvironment(process.env));
    const sizes = list(values.orders);
    if (values.pages) {
      const token = signDevelopmentToken(auth, { sub: 1, role: Role.Admin }, '4h');
      if (values['compare-builds']) await pages.compare(token, Math.max(...sizes), values['compare-builds'].split(','));
      else await pages.run(token, sizes);
      return;
    }
    await growth.run(
      signDevelopmentToken(auth, { sub: 1, role: Role.Admin }, '4h'),
      signDevelopmentToken(auth, { sub: 1, role: Role.User }, '4h'),
      { sizes, exportSeconds: Number(values['export-seconds']), saleOrders: Number(values['sale-orders']) },
    );
    // docs/API.md §14 weighs both sides at the largest size: the listing's reads above, the sale's writes here.
    if (values.writes) await writes(Math.max(...sizes));
    return;
  }
  if (values.writes) {
    await writes(Number(values.preload));
    return;
  }

  const env = validateEnvironment(process.env);
  if (env.DB_TYPE !== 'mysql') {
    throw new Error('The benchmark runs against MySQL: set DB_TYPE=mysql and the DB_* variables.');
  }
  console.log(`Benchmark on ${env.DB_HOST}:${env.DB_PORT}/${env.DB_DATABASE}, node ${process.version}`);
  const context = createContext(env, { ...options, connections: Number(values.connections) });
  try {
    if (values.shapes) await shapes.run(context, values['compare-builds']?.split(','));
    else if (values.walks) await walks.run(context);
    else if (values.exports && values['compare-builds'])
      await exportsMode.compare(
        context,
        values['compare-builds'].split(','),
        values.sorts === undefined
          ? undefined
          : { sorts: values.sorts.split(';'), exportSeconds: Number(values['export-seconds']) },
      );
    else if (values.exports) await exportsMode.run(context);
    else if (values['compare-node']) await compareNode(context, values['compare-node']);
    else if (values['compare-builds'])
      await compareBuilds(context, values['compare-builds'].split(','), {
        rate: values.rate === undefined ? undefined : Number(values.rate),
        scenarios: values.scenarios?.split(';'),
        atOnce: values['at-once'],
      });
    else if (values['compare-flags']) await compareFlags(context, values['compare-flags'].split(' ').filter(Boolean));
    else if (values['observability-cost']) await observabilityCost.run(context);
    else if (values.burst) await burst.run(context);
    else if (values.cpu) await cpu.run(context, values.rate === undefined ? undefined : Number(values.rate));
    else if (values.profile) await profile.run(context);
    else await compare.run(context, { naive: !values['without-naive'], tableSizes: !values['without-naive'] });
  } finally {
    await context.close();
  }
}

// Node runs the 'exit' hooks that stop what a run started (launchers/reap-on-exit.ts) on process.exit, not on a
// signal's default action: an interrupted run exits so, and leaves no server or data behind.
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const)
  process.once(signal, () => process.exit(code));

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
