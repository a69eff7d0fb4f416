import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Document, Spectral, type ISpectralDiagnostic } from '@stoplight/spectral-core';
import { Json } from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import request from 'supertest';
import { FOREIGN_STATUS, FOREIGN_STATUS_MEMBER, seedDataset } from '../support/data/dataset';
import { ResponseValidator } from '../support/assertions/openapi';
import { TcpProxy } from '../support/faults/tcp-proxy';
import { freshMysqlDatabase, mysqlEnvironment } from '../support/app/test-database';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { adminToken, userToken } from '../support/app/tokens';

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

  it('generates a TypeScript client that a strict program using both variants, problems and Link compiles against', async () => {
    const clientDirectory = 'test/docs/generated-client';
    writeFileSync(
      join(clientDirectory, 'orders-api.d.ts'),
      astToString(await openapiTS(structuredClone(document) as never)),
    );
    const check = spawnSync(
      process.execPath,
      ['node_modules/typescript/bin/tsc', '-p', join(clientDirectory, 'tsconfig.json')],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(`${check.stdout}${check.stderr}`).toBe('');
    expect(check.status).toBe(0);
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

  it('documents HEAD /orders, the public probes without security, and no 404 for GET /orders', () => {
    type Operation = { security?: unknown[]; responses: Record<string, { content?: unknown }> };
    const paths = document.paths as Record<string, Record<string, Operation>>;
    expect(Object.keys(paths['/orders']).sort()).toEqual(['get', 'head']);
    expect(paths['/orders'].head.security).toEqual(paths['/orders'].get.security);
    expect(Object.values(paths['/orders'].head.responses).every((response) => response.content === undefined)).toBe(
      true,
    );
    expect(paths['/orders'].get.responses['404']).toBeUndefined();
    expect(paths['/health/live'].get.security).toEqual([]);
    expect(paths['/health/ready'].get.security).toEqual([]);
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
    const list = (token: string | undefined, query = '') => {
      const call = request(context.server).get(`/orders${query}`);
      return token ? call.set('Authorization', `Bearer ${token}`) : call;
    };

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

    it('200 as CSV or NDJSON: the media types the document names, and every line an element it describes', async () => {
      type Response = { content: Record<string, unknown> };
      const paths = document.paths as Record<string, { get: { responses: Record<string, Response> } }>;
      const documented = paths['/orders'].get.responses['200'].content;
      expect(Object.keys(documented).sort()).toEqual(['application/json', 'application/x-ndjson', 'text/csv']);
      for (const [accept, mediaType] of [
        ['text/csv', 'text/csv'],
        ['application/x-ndjson', 'application/x-ndjson'],
      ]) {
        const response = await list(adminToken(), '?userId=1').set('Accept', accept).buffer(true);
        expect(response.status).toBe(200);
        expect(String(response.headers['content-type']).split(';')[0]).toBe(mediaType);
      }
      const ndjson = await list(userToken(1)).set('Accept', 'application/x-ndjson').buffer(true).parse(linesOf);
      const lines = ndjson.body as unknown[];
      const asUser = validator.componentValidator('UserOrderDto');
      expect(lines.length).toBeGreaterThan(1);
      for (const element of lines.slice(0, -1)) expect(asUser(element)).toBe(true);
    });

    it('429 to a second export of one caller: documented as its own kind', () => {
      type Response = { content: Record<string, { examples: Record<string, unknown> }> };
      const paths = document.paths as Record<string, { get: { responses: Record<string, Response> } }>;
      const examples = paths['/orders'].get.responses['429'].content['application/problem+json'].examples;
      expect(Object.keys(examples).sort()).toEqual(['exportsRunning', 'rateLimited']);
    });

    it('400, 401 and 403; an unknown route’s 404 is a problem too', async () => {
      expectDocumented(await list(adminToken(), '?size=0&sort=price'), 400);
      expectDocumented(await list(undefined), 401);
      expectDocumented(await list(userToken(1), '?userId=2'), 403);
      const notFound = await request(context.server).get('/order').set('Authorization', `Bearer ${adminToken()}`);
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
