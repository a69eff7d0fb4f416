import { spawnSync } from 'node:child_process';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Reads the samples of a Prometheus text exposition (comments skipped). */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`Not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[key] = value.replace(/\\(.)/g, (_, escaped: string) => (escaped === 'n' ? '\n' : escaped));
    }
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the one sample with this name and exactly these labels, or 0 when there is none. */
export function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels);
  const found = samples.filter(
    (sample) =>
      sample.name === name &&
      Object.keys(sample.labels).length === wanted.length &&
      wanted.every(([key, value]) => sample.labels[key] === value),
  );
  if (found.length > 1) throw new Error(`More than one sample ${name}${JSON.stringify(labels)}`);
  return found[0]?.value ?? 0;
}

/** `promtool` from Debian's `prometheus` package; CI installs it. */
export function promtool(args: string[], input?: string): { status: number | null; output: string } {
  const result = spawnSync('promtool', args, { input, encoding: 'utf8', timeout: 60_000 });
  if (result.error) {
    throw new Error(
      `promtool could not run (${result.error.message}); install it with: sudo apt-get install -y prometheus`,
    );
  }
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}
