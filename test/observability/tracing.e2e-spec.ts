import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestService, type ServiceProcess } from '../support/app/test-app';
import { adminToken } from '../support/app/tokens';
import { waitFor } from '../../launchers/wait-for';
import { bearer } from '../support/app/api-client';

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
}

const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CLIENT = 3;

/** A stand-in OTLP/HTTP collector: keeps every span posted to /v1/traces (OTLP JSON). */
class OtlpReceiver {
  readonly spans: ExportedSpan[] = [];
  exports = 0;
  private readonly server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      if (request.url === '/v1/traces') {
        this.exports += 1;
        const payload = JSON.parse(body) as {
          resourceSpans: Array<{ scopeSpans: Array<{ spans: ExportedSpan[] }> }>;
        };
        for (const resource of payload.resourceSpans)
          for (const scope of resource.scopeSpans) this.spans.push(...scope.spans);
      }
      response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });

  async start(): Promise<string> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const attribute = (span: ExportedSpan, key: string): unknown => {
  const value = span.attributes.find((entry) => entry.key === key)?.value;
  return value ? Object.values(value)[0] : undefined;
};

function logLineOf(service: ServiceProcess, requestId: string): Record<string, unknown> | undefined {
  return service
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown> & { req?: { id?: string } })
    .find((line) => line.req?.id === requestId);
}

/** A caller's W3C trace context, with fresh ids. */
function callerContext(): { traceId: string; parentId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const parentId = randomBytes(8).toString('hex');
  return { traceId, parentId, traceparent: `00-${traceId}-${parentId}-01` };
}

/** docs/API.md §12: the caller's trace is continued, a server span per request and a child span per statement. */
describe('OpenTelemetry tracing', () => {
  const receiver = new OtlpReceiver();
  let endpoint: string;

  beforeAll(async () => {
    endpoint = await receiver.start();
  });

  afterAll(async () => {
    await receiver.stop();
  });

  it('exports the request’s server span and its statement spans under the caller’s trace, and logs the trace id', async () => {
    const service = await startTestService({
      SQLITE_PATH: ':memory:',
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    try {
      const caller = callerContext();
      const response = await fetch(`${service.baseUrl}/orders?size=5`, {
        headers: {
          ...bearer(adminToken()),
          traceparent: caller.traceparent,
          'X-Request-Id': 'traced-request',
        },
      });
      expect(response.status).toBe(200);

      const server = await waitFor('the server span', () =>
        receiver.spans.find((span) => span.traceId === caller.traceId && span.kind === SPAN_KIND_SERVER),
      );
      expect(server).toMatchObject({ name: 'GET /orders', parentSpanId: caller.parentId });
      expect(attribute(server, 'http.route')).toBe('/orders');
      expect(Number(attribute(server, 'http.response.status_code'))).toBe(200);

      const statements = await waitFor('the statement spans', () => {
        const children = receiver.spans.filter((span) => span.parentSpanId === server.spanId);
        return children.length > 0 ? children : undefined;
      });
      for (const statement of statements) {
        expect(statement.traceId).toBe(caller.traceId);
        expect(statement.kind).toBe(SPAN_KIND_CLIENT);
        expect(attribute(statement, 'db.server')).toBe('primary');
        // Which statement and where; never the values it was run with.
        expect(statement.attributes.map((entry) => entry.key).sort()).toEqual([
          'db.operation.name',
          'db.server',
          'db.system.name',
        ]);
      }
      expect(statements.map((statement) => attribute(statement, 'db.operation.name'))).toContain('page');

      const line = await waitFor('the request’s log line', () => logLineOf(service, 'traced-request'));
      expect(line.trace_id).toBe(caller.traceId);
    } finally {
      service.child.kill('SIGTERM');
      await service.exited;
    }
  }, 90_000);

  it('exports nothing without OTEL_EXPORTER_OTLP_ENDPOINT, and still logs the caller’s trace id', async () => {
    const exportsBefore = receiver.exports;
    const service = await startTestService({
      SQLITE_PATH: ':memory:',
      // Where an exporter configured from the environment would send spans; the service must not create one.
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${endpoint}/v1/traces`,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    const caller = callerContext();
    const response = await fetch(`${service.baseUrl}/orders?size=5`, {
      headers: { ...bearer(adminToken()), traceparent: caller.traceparent, 'X-Request-Id': 'untraced' },
    });
    expect(response.status).toBe(200);
    const line = await waitFor('the request’s log line', () => logLineOf(service, 'untraced'));
    expect(line.trace_id).toBe(caller.traceId);
    // Shutting down flushes whatever a span processor holds: after exit, nothing more can arrive.
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
    expect(receiver.exports).toBe(exportsBefore);
    expect(receiver.spans.some((span) => span.traceId === caller.traceId)).toBe(false);
  }, 90_000);
});
