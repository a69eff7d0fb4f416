import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Document, Spectral, type ISpectralDiagnostic } from '@stoplight/spectral-core';
import { Json } from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import request from 'supertest';
import { seedDataset } from '../support/dataset';
import { ResponseValidator } from '../support/openapi';
import { TcpProxy } from '../support/tcp-proxy';
import { freshMysqlDatabase, mysqlEnvironment } from '../support/test-database';
import { startTestApp, type TestApp } from '../support/test-app';
import { adminToken, userToken } from '../support/tokens';

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
      'userId',
      'consertId',
      'concertId',
      'orderStatus',
      'startDate',
      'endDate',
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

    it('400, 401, 403 and 404', async () => {
      expectDocumented(await list(adminToken(), '?size=0&sort=price'), 400);
      expectDocumented(await list(undefined), 401);
      expectDocumented(await list(userToken(1), '?userId=2'), 403);
      const notFound = await request(context.server).get('/order').set('Authorization', `Bearer ${adminToken()}`);
      expect(notFound.status).toBe(404);
      expect(validator.validator(validator.declared('/orders', 'get', 404).schema)(notFound.body)).toBe(true);
    });

    it('503 while the database is unreachable', async () => {
      await proxy.cut();
      expectDocumented(await list(adminToken()), 503);
      await proxy.open();
    });

    it('429 past the rate limit', async () => {
      let response = await list(userToken(2));
      while (response.status !== 429) response = await list(userToken(2));
      expectDocumented(response, 429);
    });
  });
});
