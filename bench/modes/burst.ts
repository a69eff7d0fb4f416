import type { BenchContext } from '../lib/context';
import { drain, peakRss } from '../lib/measure';
import { startVariant, stop, type Variant } from '../lib/servers';

/**
 * One instance as production starts it, hit by `clients` requests at once (each its own connection), twice per
 * level: how many it answers per second, how long they wait, how many it refuses as busy, what memory it takes.
 */
export async function run(context: BenchContext): Promise<void> {
  const { env, userToken } = context;
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
      await drain(context);
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
