import type { ChildProcess } from 'node:child_process';
import type { BenchContext } from '../lib/context';
import { drain, load, median } from '../lib/measure';
import { startVariant, stop } from '../lib/servers';

const PORT = 3970;

/** The deep pages of docs/API.md §13, each with the plain page it is compared with; the walk starts at `from`. */
const WALKS: Array<{ name: string; role: 'admin' | 'user'; query: string; deepPage: number }> = [
  { name: 'admin, newest first', role: 'admin', query: 'size=20', deepPage: 25_001 },
  { name: 'admin, one status', role: 'admin', query: 'size=20&orderStatus=REFUNDED', deepPage: 2_001 },
  {
    name: 'admin, by price (no index serves it)',
    role: 'admin',
    query: 'size=20&sort=totalPrice,desc',
    deepPage: 25_001,
  },
  { name: 'member, newest first', role: 'user', query: 'size=20', deepPage: 100 },
];

const nextLink = (header: string | null): string | undefined => /<([^>]+)>; rel="next"/.exec(header ?? '')?.[1];

/**
 * `--walks`: for each walk, page 2, the deep page by offset (`page=N`), and
 * the same page reached by its `next` link (`after=`), loaded in turn for
 * each round (the order rotates), on this build: requests per second and
 * latency, and the deep pages' latency against page 2's. The link's
 * continuation is taken from the page before the deep one, as a client
 * following links would hold it.
 */
export async function run(context: BenchContext): Promise<void> {
  const { seconds, rounds, connections, adminToken, userToken } = context;
  let child: ChildProcess | undefined;
  const rows: string[] = [];
  try {
    child = await startVariant({ label: 'this build', port: PORT, node: process.execPath });
    const base = `http://127.0.0.1:${PORT}`;
    for (const walk of WALKS) {
      const token = walk.role === 'admin' ? adminToken : userToken;
      const before = await fetch(`${base}/orders?${walk.query}&page=${walk.deepPage - 1}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      await before.arrayBuffer();
      const link = nextLink(before.headers.get('link'));
      if (!link) throw new Error(`${walk.name}: page ${walk.deepPage - 1} has no next link`);
      const targets: Array<[string, string]> = [
        ['page 2', `${base}/orders?${walk.query}&page=2`],
        [`page ${walk.deepPage} by offset`, `${base}/orders?${walk.query}&page=${walk.deepPage}`],
        [`page ${walk.deepPage} by link`, `${base}${link}`],
      ];
      const samples = targets.map(() => ({ rps: [] as number[], p50: [] as number[], p99: [] as number[], errors: 0 }));
      for (let round = 0; round < rounds; round += 1) {
        for (let step = 0; step < targets.length; step += 1) {
          const index = (step + round) % targets.length;
          const result = await load(targets[index][1], token, seconds, connections);
          samples[index].rps.push(result.rps);
          samples[index].p50.push(result.p50);
          samples[index].p99.push(result.p99);
          samples[index].errors += result.errors;
          await drain(context);
        }
      }
      const pageTwo = median(samples[0].p50);
      targets.forEach(([label], index) => {
        const sample = samples[index];
        const ratio = index === 0 ? '1.00×' : `${(median(sample.p50) / pageTwo).toFixed(2)}×`;
        rows.push(
          `| ${walk.name} | ${label} | ${Math.round(median(sample.rps))} | ${median(sample.p50)} / ${median(sample.p99)} | ${ratio} | ${sample.errors} |`,
        );
      });
    }
  } finally {
    if (child) await stop(child);
  }
  console.log(`\n## Deep pages by link and by offset (${rounds} × ${seconds} s each, ${connections} connections)\n`);
  console.log('| walk | page | req/s | p50 / p99 ms | p50 against page 2 | errors |');
  console.log('|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
}
