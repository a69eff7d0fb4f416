import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BenchContext } from '../lib/context';
import { compareVariants } from './variants';

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

/** `--observability-cost`: the same build with metrics on, off, and with traces exported. */
export async function run(context: BenchContext): Promise<void> {
  const sink = await startSpanSink();
  await compareVariants(
    context,
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
