import { spawnSync, type ChildProcess } from 'node:child_process';
import { basename } from 'node:path';
import type { BenchContext } from '../lib/context';
import { cpuMs, drain, load, mean, median, peakRss, warmUp } from '../lib/measure';
import { startVariant, stop, type Variant } from '../lib/servers';

const HEADLINE = ['user page 1', 'admin page 1', 'admin all filters', 'admin size 100'];

/** `--compare-node PATH`: the same build on the Node.js running the bench and on the one at PATH. */
export async function compareNode(context: BenchContext, otherNode: string): Promise<void> {
  const version = spawnSync(otherNode, ['--version'], { encoding: 'utf8' }).stdout.trim();
  await compareVariants(
    context,
    `The same build on Node ${process.version} and Node ${version}`,
    [
      { label: `Node ${process.version}`, port: 3913, node: process.execPath },
      { label: `Node ${version}`, port: 3914, node: otherNode },
    ],
    HEADLINE,
  );
}

/** `--compare-builds=DIR,DIR,…`: the builds (`dist/`) in those checkouts, each started as production starts it. */
export async function compareBuilds(
  context: BenchContext,
  directories: string[],
  {
    scenarios = ['user page 1', 'admin page 1', 'admin orderStatus', 'admin all filters'],
    ...options
  }: {
    rate?: number;
    scenarios?: string[];
    atOnce?: boolean;
  } = {},
): Promise<void> {
  await compareVariants(
    context,
    'Builds side by side',
    directories.map((cwd, index) => ({ label: basename(cwd), port: 3950 + index, node: process.execPath, cwd })),
    scenarios,
    options,
  );
}

/** `--compare-flags="FLAGS"`: the production command against the same with extra Node.js flags. */
export async function compareFlags(context: BenchContext, flags: string[]): Promise<void> {
  await compareVariants(
    context,
    `The production command with and without ${flags.join(' ')}`,
    [
      { label: 'production', port: 3915, node: process.execPath },
      { label: `with ${flags.join(' ')}`, port: 3916, node: process.execPath, flags },
    ],
    HEADLINE,
  );
}

interface Window {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  cpuMs: number;
  answered: number;
}

const cpuPerRequest = (runs: Window[]) =>
  runs.reduce((sum, run) => sum + run.cpuMs, 0) /
  Math.max(
    1,
    runs.reduce((sum, run) => sum + run.answered, 0),
  );

/**
 * The same scenarios on each variant, interleaved (the order rotates every round), after a warm-up: throughput,
 * latency, CPU per request and its ratio to the first variant's, and peak memory. The ratio is given over the whole
 * run and, since this machine's speed drifts from window to window, as the median and range of each round's own,
 * whose windows ran next to each other. With `rate`, every window is offered that many requests a second: the CPU a
 * variant spends on the same traffic, where a closed loop gives the faster variant more requests to share its wake-ups.
 * With `atOnce` as well, the variants share each window instead of taking turns, so that a drift of the machine's
 * speed within a round falls on all of them alike.
 */
export async function compareVariants(
  context: BenchContext,
  title: string,
  variants: Variant[],
  scenarioNames: string[],
  { rate, atOnce = false }: { rate?: number; atOnce?: boolean } = {},
): Promise<void> {
  const { seconds, rounds, connections, scenarios } = context;
  // Loaded at once, a closed loop would give the faster variant more of the machine: each is offered the same rate.
  if (atOnce && rate === undefined) throw new Error('--at-once needs --rate');
  const children: ChildProcess[] = [];
  for (const variant of variants) children.push(await startVariant(variant));
  const picked = scenarios.filter((scenario) => scenarioNames.includes(scenario.name));
  const target = (variant: Variant, query: string) =>
    `http://127.0.0.1:${variant.port}/orders${query ? `?${query}` : ''}`;
  for (const scenario of picked) {
    for (const variant of variants) {
      process.stderr.write(`warm-up: ${scenario.name} on ${variant.label}\n`);
      await warmUp(target(variant, scenario.query), scenario.token, connections);
      await drain(context);
    }
  }
  const samples = new Map<string, Window[]>();
  /** One window of a variant, its CPU time counted over it. */
  const measure = async (variant: Variant, scenario: (typeof picked)[number]) => {
    const pid = children[variants.indexOf(variant)].pid ?? 0;
    const cpuBefore = cpuMs(pid);
    const result = await load(target(variant, scenario.query), scenario.token, seconds, connections, rate);
    return { ...result, cpuMs: cpuMs(pid) - cpuBefore };
  };
  const record = (scenario: (typeof picked)[number], variant: Variant, window: Window) => {
    const key = `${scenario.name}|${variant.label}`;
    samples.set(key, [...(samples.get(key) ?? []), window]);
  };
  for (let round = 0; round < rounds; round += 1) {
    for (const scenario of picked) {
      if (atOnce) {
        process.stderr.write(`round ${round + 1}: ${scenario.name} on every build at once\n`);
        const windows = await Promise.all(variants.map((variant) => measure(variant, scenario)));
        windows.forEach((window, index) => record(scenario, variants[index], window));
        await drain(context);
        continue;
      }
      const order = variants.map((_, index) => variants[(index + round) % variants.length]);
      for (const variant of order) {
        process.stderr.write(`round ${round + 1}: ${scenario.name} on ${variant.label}\n`);
        record(scenario, variant, await measure(variant, scenario));
        await drain(context);
      }
    }
  }
  const offered =
    rate === undefined ? `${connections} connections` : `${rate} requests/s offered over ${connections} connections`;
  const together = atOnce ? 'every variant loaded at once' : 'interleaved';
  console.log(`\n## ${title} (${offered}, ${rounds} × ${seconds} s after a warm-up, ${together})\n`);
  console.log(
    `| scenario | ${variants.map((variant) => `${variant.label} req/s (p50 / p99 ms; CPU ms/req)`).join(' | ')} | ${variants
      .slice(1)
      .map((variant) => `${variant.label} / ${variants[0].label} req/s; CPU (rounds' median, range)`)
      .join(' | ')} | failed |`,
  );
  console.log(`|${'---|'.repeat(variants.length * 2 + 1)}`);
  for (const scenario of picked) {
    const runsOf = (variant: Variant) => samples.get(`${scenario.name}|${variant.label}`) ?? [];
    const stats = variants.map((variant) => {
      const runs = runsOf(variant);
      return {
        rps: mean(runs.map((run) => run.rps)),
        p50: median(runs.map((run) => run.p50)),
        p99: Math.max(...runs.map((run) => run.p99)),
        errors: runs.reduce((sum, run) => sum + run.errors, 0),
        cpuPerRequest: cpuPerRequest(runs),
      };
    });
    const perRound = (variant: Variant) => {
      const [first, runs] = [runsOf(variants[0]), runsOf(variant)];
      const ratios = runs.map((run, round) => cpuPerRequest([run]) / cpuPerRequest([first[round]]));
      return `${median(ratios).toFixed(2)}, ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`;
    };
    console.log(
      `| ${scenario.name} | ${stats.map((stat) => `${stat.rps.toFixed(0)} (${stat.p50} / ${stat.p99}; ${stat.cpuPerRequest.toFixed(3)})`).join(' | ')} | ${stats
        .slice(1)
        .map(
          (stat, index) =>
            `${(stat.rps / stats[0].rps).toFixed(3)}×; ${(stat.cpuPerRequest / stats[0].cpuPerRequest).toFixed(2)}× (${perRound(variants[index + 1])})`,
        )
        .join(' | ')} | ${stats.map((stat) => stat.errors).join(' / ')} |`,
    );
  }
  console.log(
    `\nPeak RSS: ${variants.map((variant, index) => `${peakRss(children[index]).toFixed(0)} MB ${variant.label}`).join(', ')}.`,
  );
  for (const child of children) await stop(child);
}
