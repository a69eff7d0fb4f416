import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Document, Spectral, type ISpectralDiagnostic } from '@stoplight/spectral-core';
import { Json } from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { FOREIGN_STATUS, FOREIGN_STATUS_MEMBER, seedDataset } from '../support/data/dataset';
import { ResponseValidator } from '../support/assertions/openapi';
import { TcpProxy } from '../support/faults/tcp-proxy';
import { freshMysqlDatabase, mysqlEnvironment } from '../support/app/test-database';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { adminToken, userToken } from '../support/app/tokens';
import { api, withReason } from '../support/app/api-client';

/**
 * The OpenAPI document (/docs-json) as a front-end developer relies on it:
 * valid, lint-clean, and true — real answers of both variants and of every
 * documented error validate against the schemas it declares for them.
 */
describe('the OpenAPI document', () => {
  let context: TestApp;
  let proxy: TcpProxy;
  let document: Record<string, unknown>;
  let validator: ResponseValidator;

  beforeAll(async () => {
    const target = await freshMysqlDatabase('openapi');
    proxy = new TcpProxy(target.host, target.port);
    const port = await proxy.open();
    context = await startTestApp({
      ...mysqlEnvironment({ ...target, host: '127.0.0.1', port }),
      RATE_LIMIT_PER_MINUTE: '40',
    });
    await seedDataset(context.dataSource, 99);
    document = (await request(context.server).get('/docs-json')).body as Record<string, unknown>;
    validator = new ResponseValidator(document as never);
  }, 60_000);

  afterAll(async () => {
    await proxy?.cut();
    await context?.close();
  });

  it('is a valid OpenAPI 3 document', async () => {
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
    expect(document.openapi).toMatch(/^3\./);
  });

  it('passes Spectral’s OpenAPI ruleset without errors or warnings', async () => {
    const spectral = new Spectral();
    spectral.setRuleset({ extends: [[oas as never, 'recommended']] });
    const results: ISpectralDiagnostic[] = await spectral.run(new Document(JSON.stringify(document), Json));
    expect(results.map((result) => `${result.code} at ${result.path.join('.')}: ${result.message}`)).toEqual([]);
  });

  it('passes Redocly’s recommended ruleset without errors', () => {
    const directory = mkdtempSync(join(tmpdir(), 'orders-openapi-'));
    try {
      const file = join(directory, 'openapi.json');
      writeFileSync(file, JSON.stringify(document));
      const lint = spawnSync(
        process.execPath,
        ['node_modules/@redocly/cli/bin/cli.js', 'lint', '--extends=recommended', '--format=json', file],
        {
          encoding: 'utf8',
          timeout: 60_000,
          // No telemetry or update check: the linter stays on this machine.
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        },
      );
      const report = JSON.parse(lint.stdout) as {
        totals: { errors: number };
        problems: Array<{ ruleId: string; severity: string; message: string }>;
      };
      const errors = report.problems.filter((problem) => problem.severity === 'error');
      expect(errors.map((problem) => `${problem.ruleId}: ${problem.message}`)).toEqual([]);
      expect(report.totals.errors).toBe(0);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }, 60_000);

  it('describes sort directions in any case, as the service accepts them', () => {
    type Parameter = { name: string; schema: { items: { pattern: string } } };
    const operation = (document.paths as Record<string, Record<string, { parameters: Parameter[] }>>)['/orders'].get;
    const sort = operation.parameters.find((parameter) => parameter.name === 'sort');
    const term = new RegExp(sort?.schema.items.pattern ?? '(?!)');
    for (const accepted of ['totalPrice', 'totalPrice,DESC', 'createdAt,Asc', 'userId,desc']) {
      expect(accepted).toMatch(term);
    }
    for (const refused of ['price', 'totalPrice,down', 'totalPrice,desc,x', 'TOTALPRICE']) {
      expect(refused).not.toMatch(term);
    }
  });

  it('documents no HEAD operation, the public probes without security, and no 404 for GET /orders', async () => {
    type Operation = { security?: unknown[]; responses: Record<string, { content?: unknown }> };
    const paths = document.paths as Record<string, Record<string, Operation>>;
    for (const [path, item] of Object.entries(paths)) expect([path, Object.keys(item)]).toEqual([path, ['get']]);
    expect(paths['/orders'].get.responses['404']).toBeUndefined();
    expect(paths['/health/live'].get.security).toEqual([]);
    expect(paths['/health/ready'].get.security).toEqual([]);
    // HEAD is still answered wherever GET is, as HTTP has it.
    const head = await api(context.server, userToken(1)).head('/orders?size=1');
    expect(head.status).toBe(200);
    expect(head.headers.etag).toBeDefined();
  });

  it('names each export an operation of its own, with one media type, an example, and the page’s filters', () => {
    type Operation = {
      operationId: string;
      parameters: Array<{ name: string }>;
      responses: Record<string, { content?: Record<string, { example?: unknown }> }>;
    };
    const paths = document.paths as Record<string, Record<string, Operation>>;
    expect(Object.keys(paths['/orders'].get.responses['200'].content ?? {})).toEqual(['application/json']);
    const pageParameters = paths['/orders'].get.parameters.map(({ name }) => name);
    const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
    for (const [path, operationId, mediaType, ownParameters] of [
      ['/orders/export.csv', 'exportOrdersCsv', 'text/csv', ['bom', 'reason', 'fields']],
      ['/orders/export.ndjson', 'exportOrdersNdjson', 'application/x-ndjson', ['reason', 'fields']],
      ['/orders/export.xlsx', 'exportOrdersXlsx', XLSX, ['reason', 'fields']],
    ] as const) {
      const operation = paths[path].get;
      expect(operation.operationId).toBe(operationId);
      const content = operation.responses['200'].content ?? {};
      expect(Object.keys(content)).toEqual([mediaType]);
      // A workbook is binary: no example text can show it.
      if (mediaType !== XLSX) expect(content[mediaType].example).toEqual(expect.any(String));
      const parameters = operation.parameters.map(({ name }) => name);
      expect(parameters.sort()).toEqual(
        [
          ...pageParameters.filter((name) => !['page', 'size', 'after', 'before', 'If-None-Match'].includes(name)),
          ...ownParameters,
        ].sort(),
      );
    }
  });

  it('documents every parameter with its type and bounds, and which are admin-only', () => {
    type Parameter = { name: string; description: string; schema: Record<string, unknown> };
    const operation = (document.paths as Record<string, Record<string, { parameters: Parameter[] }>>)['/orders'].get;
    const parameters: Record<string, Parameter> = Object.fromEntries(
      operation.parameters.map((parameter): [string, Parameter] => [parameter.name, parameter]),
    );
    expect(Object.keys(parameters)).toEqual([
      'page',
      'size',
      'sort',
      'after',
      'before',
      'userId',
      'consertId',
      'concertId',
      'orderStatus',
      'startDate',
      'endDate',
      'If-None-Match',
      'Read-After-Gtid',
    ]);
    expect(parameters.size.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 20 });
    expect(parameters.page.schema).toMatchObject({ type: 'integer', minimum: 1, default: 1 });
    expect((parameters.orderStatus.schema as { enum: string[] }).enum).toEqual(
      expect.arrayContaining([
        '결제 대기',
        '결제 완료',
        '주문 취소',
        '환불 완료',
        'PAYMENT_PENDING',
        'PAYMENT_COMPLETED',
        'CANCELLED',
        'REFUNDED',
      ]),
    );
    for (const name of ['userId', 'consertId', 'concertId', 'orderStatus', 'startDate', 'endDate']) {
      expect(parameters[name].description).toContain('Admin only');
    }
  });

  describe('real answers validate against the documented schemas', () => {
    function expectDocumented(response: request.Response, status: number): void {
      const declared = validator.declared('/orders', 'get', status);
      expect(response.status).toBe(status);
      expect(response.headers['content-type']).toContain(declared.mediaType);
      const validate = validator.validator(declared.schema);
      expect({ valid: validate(response.body), errors: validate.errors }).toEqual({ valid: true, errors: null });
      for (const header of declared.headers) expect(response.headers[header.toLowerCase()]).toBeDefined();
    }
    const list = (token: string | undefined, query = '') => api(context.server, token).get(`/orders${query}`);

    it('200 for an administrator: every element an AdminOrderDto and not a UserOrderDto', async () => {
      const response = await list(adminToken(), '?size=100&sort=totalPrice,desc');
      expectDocumented(response, 200);
      const [asAdmin, asUser] = [
        validator.componentValidator('AdminOrderDto'),
        validator.componentValidator('UserOrderDto'),
      ];
      for (const element of (response.body as { elements: unknown[] }).elements) {
        expect(asAdmin(element)).toBe(true);
        expect(asUser(element)).toBe(false);
      }
    });

    it('200 for a member: every element a UserOrderDto and not an AdminOrderDto', async () => {
      const response = await list(userToken(1), '?size=100');
      expectDocumented(response, 200);
      const [asAdmin, asUser] = [
        validator.componentValidator('AdminOrderDto'),
        validator.componentValidator('UserOrderDto'),
      ];
      expect((response.body as { elements: unknown[] }).elements.length).toBeGreaterThan(0);
      for (const element of (response.body as { elements: unknown[] }).elements) {
        expect(asUser(element)).toBe(true);
        expect(asAdmin(element)).toBe(false);
      }
    });

    it('200 with a status another service stored: shown as its code, and still what the document allows', async () => {
      const response = await list(adminToken(), `?userId=${FOREIGN_STATUS_MEMBER}&size=100`);
      expectDocumented(response, 200);
      const statuses = (response.body as { elements: Array<{ status: string }> }).elements.map(({ status }) => status);
      expect(statuses).toContain(FOREIGN_STATUS);
      const asAdmin = validator.componentValidator('AdminOrderDto');
      for (const element of (response.body as { elements: unknown[] }).elements) expect(asAdmin(element)).toBe(true);
    });

    it('304 to a page polled with its ETag: no body, and the headers the document names', async () => {
      const first = await list(userToken(1), '?size=5');
      const polled = await list(userToken(1), '?size=5').set('If-None-Match', String(first.headers.etag));
      expect(polled.status).toBe(304);
      type Response = { content?: unknown; headers: object };
      const paths = document.paths as Record<string, { get: { responses: Record<string, Response> } }>;
      const documented = paths['/orders'].get.responses['304'];
      expect(documented.content).toBeUndefined();
      for (const header of Object.keys(documented.headers)) {
        expect(polled.headers[header.toLowerCase()]).toBeDefined();
      }
    });

    it('200 as CSV or NDJSON: the media type each export operation names, and every line an element it describes', async () => {
      type Response = { content: Record<string, unknown> };
      const paths = document.paths as Record<string, { get: { responses: Record<string, Response> } }>;
      for (const path of ['/orders/export.csv', '/orders/export.ndjson']) {
        const [mediaType] = Object.keys(paths[path].get.responses['200'].content);
        const response = await api(context.server, adminToken())
          .get(withReason(`${path}?userId=1`))
          .buffer(true);
        expect(response.status).toBe(200);
        expect(String(response.headers['content-type']).split(';')[0]).toBe(mediaType);
      }
      const ndjson = await api(context.server, userToken(1)).get('/orders/export.ndjson').buffer(true).parse(linesOf);
      const lines = ndjson.body as unknown[];
      const asUser = validator.componentValidator('UserOrderDto');
      expect(lines.length).toBeGreaterThan(1);
      for (const element of lines.slice(0, -1)) expect(asUser(element)).toBe(true);
    });

    it('406 to a page asked for as CSV only, and 429 to a second export: each documented as its own kind', async () => {
      expectDocumented(await list(adminToken(), '?size=1').set('Accept', 'text/csv'), 406);
      type Response = { content: Record<string, { examples: Record<string, unknown> }> };
      const paths = document.paths as Record<string, { get: { responses: Record<string, Response> } }>;
      const examples = paths['/orders/export.csv'].get.responses['429'].content['application/problem+json'].examples;
      expect(Object.keys(examples).sort()).toEqual(['exportsRunning', 'rateLimited']);
    });

    it('400, 401 and 403; an unknown route’s 404 is a problem too', async () => {
      expectDocumented(await list(adminToken(), '?size=0&sort=price'), 400);
      expectDocumented(await list(undefined), 401);
      expectDocumented(await list(userToken(1), '?userId=2'), 403);
      const notFound = await api(context.server, adminToken()).get('/order');
      expect(notFound.status).toBe(404);
      expect(validator.componentValidator('ProblemDetailsDto')(notFound.body)).toBe(true);
    });

    it('the probes’ answers, typed as the document says', async () => {
      for (const path of ['/health/live', '/health/ready']) {
        const response = await request(context.server).get(path);
        const declared = validator.declared(path, 'get', 200);
        const validate = validator.validator(declared.schema);
        expect({ valid: validate(response.body), errors: validate.errors }).toEqual({ valid: true, errors: null });
      }
    });

    it('503 while the database is unreachable, from the listing and from readiness', async () => {
      await proxy.cut();
      try {
        expectDocumented(await list(adminToken()), 503);
        const ready = await request(context.server).get('/health/ready');
        expect(ready.status).toBe(503);
        const validate = validator.validator(validator.declared('/health/ready', 'get', 503).schema);
        expect(validate(ready.body)).toBe(true);
        expect(ready.headers['retry-after']).toBeDefined();
      } finally {
        await proxy.open();
      }
    });

    it('429 past the rate limit', async () => {
      let response = await list(userToken(2));
      while (response.status !== 429) response = await list(userToken(2));
      expectDocumented(response, 429);
    });
  });
});

/** An NDJSON body, each line parsed. */
function linesOf(response: request.Response, done: (error: Error | null, body: unknown) => void): void {
  const stream = response as unknown as NodeJS.ReadableStream;
  let text = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => (text += chunk));
  stream.on('end', () =>
    done(
      null,
      text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as unknown),
    ),
  );
}
