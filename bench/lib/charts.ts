import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the charts docs/BENCHMARKS.md embeds are kept, each as its Vega-Lite specification and its SVG. */
const CHARTS = 'docs/charts';

/** A Vega-Lite specification with its data inline (https://vega.github.io/vega-lite/docs/spec.html). */
export type ChartSpec = Record<string, unknown>;

/** Writes a chart's specification, with its data, and renders it to SVG beside it (bench/render-charts.mjs). */
export function writeChart(name: string, spec: ChartSpec): void {
  mkdirSync(CHARTS, { recursive: true });
  const file = join(CHARTS, `${name}.vl.json`);
  writeFileSync(file, `${JSON.stringify({ $schema: 'https://vega.github.io/schema/vega-lite/v6.json', ...spec })}\n`);
  const rendered = spawnSync(process.execPath, ['bench/render-charts.mjs', file], { stdio: 'inherit' });
  if (rendered.status !== 0) throw new Error(`Could not render ${file}`);
}
