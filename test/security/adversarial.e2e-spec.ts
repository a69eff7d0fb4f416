import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import request from 'supertest';
import { seedDataset } from '../support/data/dataset';
import { expectProblem } from '../support/assertions/problem';
import { freshMysqlDatabase, mysqlEnvironment } from '../support/app/test-database';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { adminToken, handSignedToken, signToken, unsignedToken, userToken } from '../support/app/tokens';
import { api, bearer } from '../support/app/api-client';

/**
 * Hostile and malformed input against the service on MariaDB (docs/API.md §2,
 * §3, §6). Each case states the exact status and problem it must get; none may
 * answer 5xx, and no error body may carry a stack, SQL or driver text.
 */
interface Attack {
  name: string;
  /** Defaults to a valid ADMIN token; `null` sends no Authorization header. */
  token?: string | null;
  authorization?: string;
  method?: 'get' | 'head' | 'delete' | 'post' | 'put';
  path?: string;
  query?: string;
  body?: string;
  status: number;
  type?: string;
  fields?: string[];
  detail?: RegExp;
}

const VALIDATION = '/problems/invalid-parameters';
const now = () => Math.floor(Date.now() / 1000);
const claims = { sub: 5, role: 'ADMIN' };

function tamperedRole(token: string): string {
  const [header, payload, signature] = token.split('.');
  const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
  return [header, Buffer.from(JSON.stringify({ ...decoded, role: 'ADMIN' })).toString('base64url'), signature].join(
    '.',
  );
}

const invalid = (name: string, query: string, field: string, token?: string): Attack => ({
  name,
  query,
  token,
  status: 400,
  type: VALIDATION,
  fields: [field],
});

const tokenAttacks = (): Attack[] => [
  { name: 'no Authorization header', token: null, status: 401, detail: /bearer access token is required/ },
  { name: 'empty bearer', authorization: 'Bearer ', status: 401 },
  { name: 'the word Bearer alone', authorization: 'Bearer', status: 401 },
  { name: 'Basic credentials', authorization: 'Basic YWRtaW46YWRtaW4=', status: 401 },
  { name: 'a token without scheme', authorization: adminToken(), status: 401 },
  { name: 'two segments', token: adminToken().split('.').slice(0, 2).join('.'), status: 401 },
  { name: 'one segment', token: 'eyJhbGciOiJIUzI1NiJ9', status: 401 },
  { name: 'four segments', token: `${adminToken()}.extra`, status: 401 },
  { name: 'garbage segments', token: 'a.b.c', status: 401 },
  { name: 'non-base64 payload', token: 'eyJhbGciOiJIUzI1NiJ9.!!!.sig', status: 401 },
  {
    name: 'JSON that is not an object',
    token: `${Buffer.from('"x"').toString('base64url')}.${Buffer.from('[]').toString('base64url')}.c2ln`,
    status: 401,
  },
  { name: 'a 15 KB token', token: `eyJhbGciOiJIUzI1NiJ9.${'A'.repeat(15 * 1024)}.sig`, status: 401 },
  { name: 'a 16 KB token, past the header limit', token: 'A'.repeat(16 * 1024), status: 431 },
  { name: 'alg none', token: unsignedToken(claims), status: 401 },
  {
    name: 'alg None',
    token: unsignedToken(claims).replace(/^[^.]+/, Buffer.from('{"alg":"None"}').toString('base64url')),
    status: 401,
  },
  {
    name: 'alg NONE with a signature',
    token: `${Buffer.from('{"alg":"NONE","typ":"JWT"}').toString('base64url')}.${adminToken().split('.')[1]}.c2ln`,
    status: 401,
  },
  { name: 'HS384, outside the allow-list', token: signToken(claims, { algorithm: 'HS384' }), status: 401 },
  { name: 'HS512, outside the allow-list', token: signToken(claims, { algorithm: 'HS512' }), status: 401 },
  { name: 'a wrong secret', token: signToken(claims, { secret: 'not-the-secret-not-the-secret-000000' }), status: 401 },
  { name: 'an empty-looking secret', token: signToken(claims, { secret: ' '.repeat(40) }), status: 401 },
  {
    name: 'expired just outside the tolerance',
    token: signToken(claims, { expiresInSeconds: -33 }),
    status: 401,
    detail: /expired/,
  },
  { name: 'expired just inside the tolerance', token: signToken(claims, { expiresInSeconds: -27 }), status: 200 },
  {
    name: 'expired long ago',
    token: signToken({ ...claims, exp: 1_000_000 }, { expiresInSeconds: null }),
    status: 401,
  },
  { name: 'exp as a string', token: handSignedToken({ ...claims, exp: String(now() + 600) }), status: 401 },
  {
    name: 'a hand-made HS256 token the service accepts',
    token: handSignedToken({ ...claims, exp: now() + 600 }),
    status: 200,
  },
  { name: 'no exp', token: signToken(claims, { expiresInSeconds: null }), status: 401 },
  {
    name: 'nbf in the future',
    token: signToken(claims, { notBeforeSeconds: 120 }),
    status: 401,
    detail: /not valid yet/,
  },
  { name: 'nbf within the tolerance', token: signToken(claims, { notBeforeSeconds: 20 }), status: 200 },
  { name: 'a wrong issuer', token: signToken(claims, { issuer: 'https://id.tickets.test.evil/' }), status: 401 },
  { name: 'no issuer', token: signToken(claims, { issuer: null }), status: 401 },
  { name: 'a wrong audience', token: signToken(claims, { audience: 'orders-api-admin' }), status: 401 },
  { name: 'no audience', token: signToken(claims, { audience: null }), status: 401 },
  {
    name: 'our audience among others',
    token: signToken({ ...claims, aud: ['billing', 'orders-api'] }, { audience: null }),
    status: 200,
  },
  { name: 'a USER token whose role was edited to ADMIN', token: tamperedRole(userToken(3)), status: 401 },
  { name: 'role admin in lower case', token: signToken({ sub: 5, role: 'admin' }), status: 403 },
  { name: 'role user in lower case', token: signToken({ sub: 5, role: 'user' }), status: 403 },
  { name: 'role with a trailing space', token: signToken({ sub: 5, role: 'ADMIN ' }), status: 403 },
  { name: 'roles in lower case', token: signToken({ sub: 5, roles: ['admin'] }), status: 403 },
  { name: 'role as an object', token: signToken({ sub: 5, role: { name: 'ADMIN' } }), status: 403 },
  { name: 'sub 0', token: signToken({ sub: 0, role: 'USER' }), status: 403 },
  { name: 'sub negative', token: signToken({ sub: -7, role: 'USER' }), status: 403 },
  { name: 'sub past 2^53', token: signToken({ sub: '9007199254740993', role: 'USER' }), status: 403 },
  { name: 'sub with SQL', token: signToken({ sub: '1 OR 1=1', role: 'USER' }), status: 403 },
  { name: 'sub as an array', token: signToken({ sub: [1], role: 'USER' }), status: 403 },
  {
    name: 'a path-traversal kid (ignored with a shared secret)',
    token: signToken(claims, { header: { kid: '../../../../dev/null' } }),
    status: 200,
  },
  {
    name: 'an SQL kid (ignored with a shared secret)',
    token: signToken(claims, { header: { kid: "' UNION SELECT 'secret" } }),
    status: 200,
  },
  {
    name: 'a jku header pointing elsewhere (ignored)',
    token: signToken(claims, { header: { jku: 'https://evil.example/jwks.json' } }),
    status: 200,
  },
];

const userFilterAttacks = (): Attack[] => [
  ...[
    'userId=1',
    'userId=5',
    'consertId=1',
    'concertId=1',
    'orderStatus=CANCELLED',
    'startDate=2026-01-01',
    'endDate=2026-01-01',
  ].map((query): Attack => ({
    name: `a user sending ${query}`,
    token: userToken(5),
    query,
    status: 403,
    detail: /Only administrators/,
  })),
  { name: 'a user sending userId in the body', token: userToken(5), body: '{"userId": 1}', status: 403 },
  {
    name: 'a user sorting by userId',
    token: userToken(5),
    query: 'sort=userId,desc',
    status: 400,
    type: VALIDATION,
    fields: ['sort'],
  },
];

const parameterAttacks = (): Attack[] => [
  ...['0', '-1', '1.5', 'abc', '1e3', '9007199254740993', '0x10', ' 1', '+1', '１'].map((value) =>
    invalid(`page=${value}`, `page=${encodeURIComponent(value)}`, 'page'),
  ),
  ...['0', '-1', '1.5', 'abc', '1e3', '101', '9007199254740993'].map((value) =>
    invalid(`size=${value}`, `size=${encodeURIComponent(value)}`, 'size'),
  ),
  ...[
    'id;DROP TABLE orders',
    'CASE WHEN 1=1 THEN createdAt ELSE orderId END',
    'createdAt,desc,SLEEP(5)',
    'createdAt desc',
    'createdAt,desc;--',
    'seats.price',
    'o.createdAt',
    '(SELECT 1)',
    'createdAt,ASC NULLS FIRST',
    'totalPrice,desc&sort=totalPrice',
    'userId`',
  ].map((value) =>
    invalid(`sort=${value}`, `sort=${encodeURIComponent(value).replace('%26sort%3D', '&sort=')}`, 'sort'),
  ),
  ...["결제 완료' OR '1'='1", 'PAYMENT_COMPLETED;--', 'payment_completed', '', '%', 'PAYMENT_%'].map((value) =>
    invalid(`orderStatus=${value}`, `orderStatus=${encodeURIComponent(value)}`, 'orderStatus'),
  ),
  ...[
    '2026-02-30',
    '0000-00-00',
    '1767225600',
    '1767225600000',
    '2026-01-01T00:00:00+14:30',
    '2026-01-01T00:00:00+09:60',
    '2026-01-01T00:00:00+0900',
    '2026-01-01T00:00:00 +09:00',
    'now',
    "2026-01-01' OR 1=1 --",
  ].map((value) => invalid(`startDate=${value}`, `startDate=${encodeURIComponent(value)}`, 'startDate')),
  invalid('an inverted range', 'startDate=2026-05-01&endDate=2026-04-30', 'startDate'),
  ...['-1', '1.5', '9223372036854775808', '１２３', '1 OR 1=1', '0x10', '1e2', ''].map((value) =>
    invalid(`userId=${value}`, `userId=${encodeURIComponent(value)}`, 'userId'),
  ),
  invalid('consertId=1 OR 1=1', 'consertId=1%20OR%201%3D1', 'consertId'),
  invalid('status[$ne]=x', 'status%5B%24ne%5D=x', 'status[$ne]'),
  invalid('__proto__[isAdmin]=true', '__proto__%5BisAdmin%5D=true', '__proto__[isAdmin]'),
  invalid('constructor[prototype][x]=1', 'constructor%5Bprototype%5D%5Bx%5D=1', 'constructor[prototype][x]'),
  invalid('page[]=1', 'page%5B%5D=1', 'page[]'),
  invalid('userId[gt]=0', 'userId%5Bgt%5D=0', 'userId[gt]'),
  ...['select', 'relations', 'debug', 'where', 'take', 'skip', 'role'].map((name) =>
    invalid(`unknown ${name}`, `${name}=1`, name),
  ),
  invalid('page repeated', 'page=1&page=2', 'page'),
  invalid('userId repeated', 'userId=1&userId=1', 'userId'),
  {
    name: '1,000 repeated parameters',
    query: Array.from({ length: 1000 }, () => 'p=1').join('&'),
    status: 400,
    type: VALIDATION,
    fields: ['query'],
    detail: /more than 50 parameters/,
  },
  {
    name: '1,000 repeated page parameters',
    query: Array.from({ length: 1000 }, () => 'page=1').join('&'),
    status: 414,
  },
  { name: 'a 5 KB query string', query: `sort=${'a'.repeat(5 * 1024)}`, status: 414 },
  { name: 'a 100 KB query string', query: `sort=${'a'.repeat(100 * 1024)}`, status: 431 },
];

const bodyAttacks = (): Attack[] => [
  {
    name: 'malformed JSON',
    body: '{"page": 1',
    status: 400,
    type: VALIDATION,
    fields: ['body'],
    detail: /not valid JSON/,
  },
  { name: 'a JSON array', body: '[{"page": 1}]', status: 400, type: VALIDATION, fields: ['body'] },
  // Not an object or an array: the JSON parser refuses it, as malformed JSON.
  { name: 'a JSON string', body: '"page=1"', status: 400, type: VALIDATION, fields: ['body'] },
  {
    name: '__proto__ in the body',
    body: '{"__proto__": {"role": "ADMIN"}}',
    status: 400,
    type: VALIDATION,
    fields: ['__proto__'],
  },
  { name: 'an object as page', body: '{"page": {"$gt": 0}}', status: 400, type: VALIDATION, fields: ['page'] },
  { name: 'a 20 KB body', body: JSON.stringify({ sort: 'x'.repeat(20 * 1024) }), status: 413 },
];

const pathAttacks = (): Attack[] => [
  { name: 'HEAD without a token', method: 'head', token: null, status: 401 },
  { name: 'HEAD with a token', method: 'head', status: 200 },
  { name: 'a trailing slash', path: '/orders/', status: 200 },
  { name: 'another letter case', path: '/Orders', status: 200 },
  { name: 'DELETE', method: 'delete', status: 404 },
  { name: 'POST', method: 'post', body: '{}', status: 404 },
  { name: 'PUT', method: 'put', status: 404 },
  { name: '/orders/1', path: '/orders/1', status: 404 },
  { name: '/orders/..', path: '/orders/..', status: 404 },
  { name: 'an encoded slash', path: '/orders%2F', status: 404 },
  { name: 'a double slash', path: '//orders', status: 404 },
  { name: 'a matrix parameter', path: '/orders;x=1', status: 404 },
  { name: 'an encoded traversal', path: '/orders/%2e%2e/%2e%2e/etc/passwd', status: 404 },
  { name: 'a broken percent escape', path: '/orders/%', status: 400 },
  { name: 'a NUL byte', path: '/%00', status: 404 },
];

async function attack(context: TestApp, attempt: Attack) {
  const path = `${attempt.path ?? '/orders'}${attempt.query ? `?${attempt.query}` : ''}`;
  let call = request(context.server)[attempt.method ?? 'get'](path);
  const authorization =
    attempt.authorization ?? (attempt.token === null ? undefined : bearer(attempt.token ?? adminToken()).Authorization);
  if (authorization !== undefined) call = call.set('Authorization', authorization);
  if (attempt.body !== undefined) call = call.set('Content-Type', 'application/json').send(attempt.body);
  return call;
}

function check(response: request.Response, attempt: Attack): void {
  expect(response.status).toBeLessThan(500);
  if (attempt.method === 'head') {
    expect(response.status).toBe(attempt.status);
    expect(response.text ?? '').toBe('');
    return;
  }
  if (attempt.status < 400) {
    expect({ status: response.status, body: response.body as unknown }).toMatchObject({ status: attempt.status });
    return;
  }
  const problem = expectProblem(response, attempt.status, attempt.fields);
  expect(problem.type).toBe(attempt.type ?? 'about:blank');
  if (attempt.detail) expect(problem.detail).toMatch(attempt.detail);
  if (attempt.status === 401) expect(response.headers['www-authenticate']).toMatch(/^Bearer realm="orders"/);
}

describe('hostile input on MariaDB', () => {
  let context: TestApp;

  beforeAll(async () => {
    context = await startTestApp(mysqlEnvironment(await freshMysqlDatabase('adversarial')));
    await seedDataset(context.dataSource, 7);
  }, 60_000);

  afterAll(async () => {
    await context?.close();
  });

  const all = [...tokenAttacks(), ...userFilterAttacks(), ...parameterAttacks(), ...bodyAttacks(), ...pathAttacks()];

  it.each(all.map((attempt) => [attempt.name, attempt] as const))('%s', async (_, attempt) => {
    check(await attack(context, attempt), attempt);
  });

  it('never shows a user another member’s orders or count', async () => {
    const response = await attack(context, {
      name: 'userId of another member',
      token: userToken(2),
      query: 'userId=1',
      status: 403,
    });
    expect(response.text).not.toMatch(/totalElementCount|orderId/);
  });

  it('replaces a hostile X-Request-Id with its own', async () => {
    for (const offered of [
      '<script>alert(1)</script>',
      'a'.repeat(200),
      'id with spaces',
      "'; DROP TABLE orders; --",
    ]) {
      const response = await request(context.server).get('/health/live').set('X-Request-Id', offered);
      expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});

describe('key confusion on MariaDB with an RS256 public key', () => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicPem = rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  let context: TestApp;

  beforeAll(async () => {
    context = await startTestApp({
      ...mysqlEnvironment(await freshMysqlDatabase('adversarial_rs')),
      JWT_SECRET: undefined,
      JWT_PUBLIC_KEY: publicPem,
    });
  }, 60_000);

  afterAll(async () => {
    await context?.close();
  });

  it.each([
    [
      'HS256 signed with the public key as secret',
      () => signToken(claims, { secret: Buffer.from(publicPem), algorithm: 'HS256' }),
      401,
    ],
    [
      'HS256 signed with the public key without its newline',
      () => signToken(claims, { secret: Buffer.from(publicPem.trim()), algorithm: 'HS256' }),
      401,
    ],
    ['alg none', () => unsignedToken(claims), 401],
    [
      'RS256 signed with the private key',
      () =>
        signToken(claims, {
          secret: rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
          algorithm: 'RS256',
        }),
      200,
    ],
  ])('%s', async (_, token, status) => {
    const response = await api(context.server, token()).get('/orders');
    if (status === 200) expect(response.status).toBe(200);
    else expectProblem(response, status);
  });
});
