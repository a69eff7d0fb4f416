import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { expectProblem } from '../support/assertions/problem';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { userToken } from '../support/app/tokens';
import { api } from '../support/app/api-client';

/** docs/API.md §10: RATE_LIMIT_PER_MINUTE per caller; 429 problem+json with Retry-After; 0 turns it off. */
describe('rate limit of 5 per minute', () => {
  let context: TestApp;

  beforeAll(async () => {
    context = await startTestApp({
      RATE_LIMIT_PER_MINUTE: '5',
      CORS_ORIGINS: 'https://tickets.example,https://admin.tickets.example',
    });
  });

  afterAll(async () => {
    await context?.close();
  });

  const list = (token?: string) => api(context.server, token).get('/orders');

  it('answers 429 with Retry-After to the sixth request of a member, and counts each member apart', async () => {
    for (let attempt = 0; attempt < 5; attempt += 1) expect((await list(userToken(11))).status).toBe(200);
    const limited = await list(userToken(11));
    expectProblem(limited, 429);
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await list(userToken(12))).status).toBe(200);
  });

  it('counts a revalidation answered 304 as a request (docs/API.md §13)', async () => {
    const first = await list(userToken(15));
    const etag = String(first.headers.etag);
    for (let attempt = 0; attempt < 4; attempt += 1) {
      expect((await list(userToken(15)).set('If-None-Match', etag)).status).toBe(304);
    }
    expectProblem(await list(userToken(15)).set('If-None-Match', etag), 429);
  });

  it('counts callers without an accepted token by address', async () => {
    for (let attempt = 0; attempt < 5; attempt += 1) expectProblem(await list(), 401);
    expectProblem(await list('forged.token.value'), 429);
  });

  it('does not count health probes', async () => {
    for (let attempt = 0; attempt < 20; attempt += 1) {
      expect((await request(context.server).get('/health/live')).status).toBe(200);
    }
  });

  it('lets the configured web clients read the API and its headers, and no one else', async () => {
    const allowed = await list(userToken(13)).set('Origin', 'https://admin.tickets.example');
    expect(allowed.headers['access-control-allow-origin']).toBe('https://admin.tickets.example');
    expect(String(allowed.headers['access-control-expose-headers']).split(/\s*,\s*/)).toEqual([
      'ETag',
      'Link',
      'X-Request-Id',
      'Retry-After',
      'Data-Staleness',
    ]);
    const preflight = await request(context.server)
      .options('/orders')
      .set('Origin', 'https://tickets.example')
      .set('Access-Control-Request-Method', 'GET')
      .set('Access-Control-Request-Headers', 'authorization,content-type')
      .set('X-Request-Id', 'preflight-1');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://tickets.example');
    // Answered before any hook of the service runs, and still with its request id.
    expect(preflight.headers['x-request-id']).toBe('preflight-1');
    const foreign = await list(userToken(14)).set('Origin', 'https://evil.example');
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers an OPTIONS that is not a preflight like any other method without a route: a 404 problem', async () => {
    const bare = await request(context.server).options('/orders');
    const withoutMethod = await request(context.server).options('/orders').set('Origin', 'https://tickets.example');
    for (const response of [bare, withoutMethod]) {
      expectProblem(response, 404);
      expect(response.headers['x-request-id']).toEqual(expect.any(String));
    }
  });

  it('sends the usual security headers, on answers and on errors alike', async () => {
    for (const response of [
      await request(context.server).get('/health/live'),
      await request(context.server).get('/orders'),
      await request(context.server).get('/no-such-route'),
    ]) {
      expect(response.headers).toMatchObject({
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'SAMEORIGIN',
        'referrer-policy': 'no-referrer',
        'strict-transport-security': 'max-age=31536000; includeSubDomains',
        'cross-origin-opener-policy': 'same-origin',
      });
      expect(response.headers['content-security-policy']).toContain("default-src 'self'");
      expect(response.headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
      expect(response.headers['x-powered-by']).toBeUndefined();
    }
  });
});

describe('rate limit turned off', () => {
  let context: TestApp;

  beforeAll(async () => {
    context = await startTestApp({ RATE_LIMIT_PER_MINUTE: '0' });
  });

  afterAll(async () => {
    await context?.close();
  });

  it('never answers 429', async () => {
    for (let attempt = 0; attempt < 50; attempt += 1) {
      expect((await api(context.server, userToken(11)).get('/orders')).status).toBe(200);
    }
  });
});
