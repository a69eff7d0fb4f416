// Renders the bench's charts to SVG with Vega-Lite: each docs/charts/NAME.vl.json (a specification holding its own
// data, written by a bench mode) becomes docs/charts/NAME.svg beside it. `npm run charts` renders every one; a bench
// mode renders those it wrote. An ES module of its own: Vega loads only as one.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vega from 'vega';
import { compile } from 'vega-lite';

const CHARTS = 'docs/charts';
const named = process.argv.slice(2);
const files =
  named.length > 0
    ? named
    : readdirSync(CHARTS)
        .filter((file) => file.endsWith('.vl.json'))
        .map((file) => join(CHARTS, file));
for (const file of files) {
  const { spec } = compile(JSON.parse(readFileSync(file, 'utf8')));
  // No renderer: the view is only laid out, and written as SVG text.
  const svg = await new vega.View(vega.parse(spec), { renderer: 'none' }).toSVG();
  writeFileSync(file.replace(/\.vl\.json$/, '.svg'), `${svg}\n`);
  console.error(`${file} → ${file.replace(/\.vl\.json$/, '.svg')}`);
}
