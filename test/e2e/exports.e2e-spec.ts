import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { createConnection, type Connection, type RowDataPacket } from 'mysql2/promise';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { waitFor } from '../../launchers/wait-for';
import type { Counter } from 'prom-client';
import { Metrics } from '../../src/observability/metrics';
import { EXPORT_BATCH_SIZE } from '../../src/orders/export/export-batches';
import { expectProblem } from '../support/assertions/problem';
import { adminQuery, inverted, written } from '../support/data/arbitraries';
import { TcpProxy } from '../support/faults/tcp-proxy';
import { buildDataset, MEMBERS, plantOrders, type TestOrder } from '../support/data/dataset';
import { freshMysqlDatabase, mysqlEnvironment, type MysqlTarget } from '../support/app/test-database';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { adminToken, userToken } from '../support/app/tokens';
import { api, bearer, withReason } from '../support/app/api-client';

type Element = Record<string, unknown> & { orderId: number; seats: Array<{ seatPriceId: number; price: number }> };

const CSV = 'text/csv';
const NDJSON = 'application/x-ndjson';
/** Each export is an operation of its own, at its own path. */
const EXPORT_PATHS = { [CSV]: '/orders/export.csv', [NDJSON]: '/orders/export.ndjson' } as const;
/** An export's path with its query and the reason an administrator states (a member may state one too). */
const exportPath = (format: typeof CSV | typeof NDJSON, query = '') =>
  withReason(`${EXPORT_PATHS[format]}${query ? '?' : ''}${query}`);
const ADMIN_COLUMNS = ['orderId', 'userId', 'concertId', 'seats', 'totalPrice', 'status', 'createdAt', 'updatedAt'];
const USER_COLUMNS = ADMIN_COLUMNS.filter((column) => column !== 'userId');
/** A status another service stored that a spreadsheet would run as a formula, with a comma and quotes to quote. */
const FORMULA_STATUS = '=HYPERLINK("x",1)';
/** Orders enough for several batches, so that every export below crosses batch boundaries. */
const ORDERS = EXPORT_BATCH_SIZE * 2 + 600;
const TEST_QUICK = process.env.TEST_QUICK === '1';

/** A CSV cell as the export writes an element's field: seats as `seatPriceId:price` joined by `;`. */
function cellOf(element: Element, column: string): string {
  if (column === 'seats') return element.seats.map(({ seatPriceId, price }) => `${seatPriceId}:${price}`).join(';');
  const text = String(element[column]);
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/**
 * Exports (docs/API.md §13): `GET /orders/export.csv` and `GET /orders/export.ndjson` answer
 * every matching order, element for element what the pages of the same
 * query hold, across batch boundaries; validated as pages are, and
 * `page`, `size` and continuations refused.
 */
describe.each(['sqlite', 'mysql'] as const)('exports on %s (docs/API.md §13)', (database) => {
  let context: TestApp;
  let orders: TestOrder[];

  beforeAll(async () => {
    const environment = database === 'mysql' ? mysqlEnvironment(await freshMysqlDatabase('exports')) : {};
    context = await startTestApp({ ...environment, RATE_LIMIT_PER_MINUTE: '0' });
    orders = buildDataset(5151, ORDERS);
    orders[7] = { ...orders[7], status: FORMULA_STATUS };
    await plantOrders(context.dataSource, orders);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
  });

  const get = (token: string, target: string, accept?: string) => {
    const call = api(context.server, token).get(target);
    return accept ? call.set('Accept', accept) : call;
  };

  /** Every element the pages of a query hold, in order, page after page by offset. */
  async function pagedElements(token: string, query: string): Promise<Element[]> {
    const elements: Element[] = [];
    for (let page = 1; ; page += 1) {
      const response = await get(token, `/orders?${query}${query ? '&' : ''}page=${page}&size=100`);
      expect(response.status).toBe(200);
      const body = response.body as { elements: Element[]; totalPages: number };
      elements.push(...body.elements);
      if (page >= body.totalPages) return elements;
    }
  }

  async function ndjsonOf(token: string, query: string): Promise<{ elements: Element[]; last: unknown }> {
    const response = await get(token, exportPath(NDJSON, query)).buffer(true).parse(textParser);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(NDJSON);
    const lines = (response.body as string).split('\n');
    expect(lines.pop()).toBe('');
    const parsed = lines.map((line) => JSON.parse(line) as unknown);
    return { elements: parsed.slice(0, -1) as Element[], last: parsed.at(-1) };
  }

  async function csvOf(token: string, query: string): Promise<string[][]> {
    const response = await get(token, exportPath(CSV, query)).buffer(true).parse(textParser);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
    expect(response.headers['content-disposition']).toBe('attachment; filename="orders.csv"');
    const text = response.body as string;
    // RFC 4180: every record ends with CRLF, the last one too.
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
    const rows: string[][] = parse(text);
    return rows;
  }

  it('exports every order as NDJSON, element for element the pages, ending with the count', async () => {
    const { elements, last } = await ndjsonOf(adminToken(), '');
    expect(elements.length).toBe(orders.length);
    expect(elements.length).toBeGreaterThan(2 * EXPORT_BATCH_SIZE);
    expect(elements).toEqual(await pagedElements(adminToken(), ''));
    expect(last).toEqual({ complete: true, count: orders.length });
  }, 60_000);

  it('exports CSV by RFC 4180: a header of the field names, seats as seatPriceId:price joined by ;', async () => {
    const [header, ...rows] = await csvOf(adminToken(), 'sort=status&sort=totalPrice,desc');
    expect(header).toEqual(ADMIN_COLUMNS);
    const elements = await pagedElements(adminToken(), 'sort=status&sort=totalPrice,desc');
    expect(rows).toEqual(elements.map((element) => ADMIN_COLUMNS.map((column) => cellOf(element, column))));
    // The stored status came through quoted and unharmed, but for the quote that keeps a spreadsheet from running it.
    expect(rows.map((row) => row[5])).toContain(`'${FORMULA_STATUS}`);
    const withoutSeats = elements.findIndex((element) => element.seats.length === 0);
    expect(rows[withoutSeats][3]).toBe('');
  }, 60_000);

  it(`over ${TEST_QUICK ? 3 : 12} random admin queries, an export holds exactly the pages' elements`, async () => {
    await fc.assert(
      fc.asyncProperty(
        adminQuery.filter((query) => !inverted(query)),
        fc.constantFrom(CSV, NDJSON),
        async (query, format) => {
          // The written query without its page and size, which an export refuses.
          const text = written(query, 1)
            .text.split('&')
            .filter((parameter) => !/^(page|size)=/.test(parameter))
            .join('&');
          const expected = await pagedElements(adminToken(), text);
          if (format === NDJSON) {
            const { elements, last } = await ndjsonOf(adminToken(), text);
            expect(elements).toEqual(expected);
            expect(last).toEqual({ complete: true, count: expected.length });
          } else {
            const [, ...rows] = await csvOf(adminToken(), text);
            expect(rows.map((row) => Number(row[0]))).toEqual(expected.map((element) => element.orderId));
          }
        },
      ),
      { numRuns: TEST_QUICK ? 3 : 12, seed: 29 },
    );
  }, 300_000);

  it("exports a member's own orders only, without userId, in both formats", async () => {
    const member = MEMBERS[1];
    const own = orders.filter((order) => order.userId === member).length;
    const { elements, last } = await ndjsonOf(userToken(member), 'sort=totalPrice');
    expect(elements).toEqual(await pagedElements(userToken(member), 'sort=totalPrice'));
    expect(last).toEqual({ complete: true, count: own });
    expect(elements.every((element) => !('userId' in element))).toBe(true);
    const [header, ...rows] = await csvOf(userToken(member), '');
    expect(header).toEqual(USER_COLUMNS);
    expect(rows).toHaveLength(own);
  }, 60_000);

  it('counts exports by outcome, and the orders they wrote', async () => {
    const metrics = context.app.get(Metrics);
    const valueOf = async (counter: Counter, labels: Record<string, string>) =>
      (await counter.get()).values.find((value) =>
        Object.entries(labels).every(([name, label]) => value.labels[name] === label),
      )?.value ?? 0;
    const labels = { variant: 'user', format: 'ndjson' };
    const [exports, rows] = [
      await valueOf(metrics.exports, { ...labels, outcome: 'complete' }),
      await valueOf(metrics.exportedRows, labels),
    ];
    const { elements } = await ndjsonOf(userToken(MEMBERS[2]), '');
    await waitFor(
      'the export to be counted',
      async () => (await valueOf(metrics.exports, { ...labels, outcome: 'complete' })) === exports + 1,
    );
    expect(await valueOf(metrics.exportedRows, labels)).toBe(rows + elements.length);
  });

  it('answers an empty export with its header, or with a count of 0', async () => {
    expect(await csvOf(adminToken(), 'userId=999999')).toEqual([ADMIN_COLUMNS]);
    expect(await ndjsonOf(adminToken(), 'userId=999999')).toEqual({
      elements: [],
      last: { complete: true, count: 0 },
    });
  });

  it('hands over only the fields named, in the element’s order, in each format', async () => {
    const [header, ...records] = await csvOf(adminToken(), 'orderStatus=REFUNDED&fields=totalPrice,orderId');
    expect(header).toEqual(['orderId', 'totalPrice']);
    const { elements } = await ndjsonOf(adminToken(), 'orderStatus=REFUNDED&fields=totalPrice,orderId');
    expect(elements.map((element) => Object.keys(element))).toEqual(elements.map(() => ['orderId', 'totalPrice']));
    expect(records.map(([orderId]) => Number(orderId))).toEqual(elements.map((element) => element.orderId));
    // A member's own export, a field of theirs.
    const own = await ndjsonOf(userToken(1), 'fields=status');
    expect(own.elements.length).toBeGreaterThan(0);
    expect(own.elements.every((element) => Object.keys(element).join() === 'status')).toBe(true);
  });

  it('refuses an administrator’s export without a reason, and an unknown field, naming each; a member needs none', async () => {
    const bare = (format: typeof CSV | typeof NDJSON, query = '') => `${EXPORT_PATHS[format]}${query}`;
    expectProblem(await get(adminToken(), bare(CSV)), 400, ['reason']);
    expectProblem(await get(adminToken(), bare(NDJSON, '?reason=too%20short')), 400, ['reason']);
    expectProblem(await get(adminToken(), exportPath(CSV, 'fields=orderId,price')), 400, ['fields']);
    expectProblem(await get(userToken(1), exportPath(CSV, 'fields=userId')), 400, ['fields']);
    expect((await get(userToken(1), bare(NDJSON))).status).toBe(200);
  });

  it('refuses page, size and continuations in an export, naming each, and validates the rest as pages do', async () => {
    expectProblem(await get(adminToken(), exportPath(CSV, 'page=2&size=10')), 400, ['page', 'size']);
    expectProblem(await get(adminToken(), exportPath(NDJSON, 'after=abc')), 400, ['after']);
    expectProblem(await get(adminToken(), exportPath(CSV, 'sort=price&orderStatus=LOST')), 400, [
      'sort',
      'orderStatus',
    ]);
    // 403 before 400, as for pages.
    expectProblem(await get(userToken(1), exportPath(CSV, 'userId=2&size=0')), 403);
    expectProblem(await request(context.server).get(exportPath(CSV)), 401);
  });

  it('answers pages in JSON only: an Accept that admits only an export is 406, naming the export operations', async () => {
    for (const accept of [CSV, 'text/csv; charset=utf-8', NDJSON, `${CSV}, ${NDJSON}`]) {
      const response = await get(adminToken(), '/orders?userId=1', accept);
      const problem = expectProblem(response, 406);
      expect(problem.detail).toContain('GET /orders/export.csv');
      expect(problem.detail).toContain('GET /orders/export.ndjson');
      expect(response.headers.vary).toMatch(/\bAccept\b/);
    }
    // JSON admitted, however reluctantly, or no preference at all: the page.
    for (const accept of ['application/json;q=0.5, text/csv', '*/*', 'text/html', `${CSV}, */*;q=0.1`]) {
      const response = await get(adminToken(), '/orders?userId=1', accept);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
    }
  });

  it('answers HEAD wherever GET is: the export’s headers, no body, and no export run', async () => {
    for (const format of [CSV, NDJSON] as const) {
      const response = await api(context.server, adminToken()).head(exportPath(format, 'userId=1'));
      expect(response.status).toBe(200);
      expect(String(response.headers['content-type'])).toMatch(new RegExp(`^${format}`));
      expect(response.text ?? '').toBe('');
    }
  });
});

/** A body read whole as text, whatever its type. */
function textParser(response: request.Response, done: (error: Error | null, body: unknown) => void): void {
  const stream = response as unknown as IncomingMessage;
  let body = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => (body += chunk));
  stream.on('end', () => done(null, body));
}

/**
 * What only a real server shows, on MariaDB: statements made to wait where
 * the test wants, by a table lock a session of the test's own holds, or by a
 * relay that holds the statements of later batches. A second export of the
 * same caller is refused while one runs; a client that goes away has its
 * statement stopped at once; a failure before the first byte is a problem
 * answer, and one after it closes the connection without the end.
 */
describe('exports on MariaDB, with statements held where the test wants (docs/API.md §13)', () => {
  let context: TestApp;
  let target: MysqlTarget;
  let proxy: TcpProxy;
  let locker: Connection;
  let base: string;

  beforeAll(async () => {
    target = await freshMysqlDatabase('exports_held');
    proxy = new TcpProxy(target.host, target.port);
    const port = await proxy.open();
    context = await startTestApp({
      ...mysqlEnvironment({ ...target, host: '127.0.0.1', port }),
      RATE_LIMIT_PER_MINUTE: '0',
      EXPORTS_PER_CALLER: '1',
      DB_QUERY_TIMEOUT_MS: '1500',
    });
    await plantOrders(context.dataSource, buildDataset(6262, EXPORT_BATCH_SIZE * 2 + 600));
    locker = await createConnection({ ...target });
    await context.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(context.app.getHttpServer().address() as AddressInfo).port}`;
  }, 120_000);

  afterAll(async () => {
    await locker?.query('UNLOCK TABLES').catch(() => undefined);
    await locker?.end();
    // Connections whose statements the relay held are dropped first: the pool would wait for them.
    await proxy?.cut();
    await context?.close();
  });

  /** The statements running on the test database, the test's own sessions aside. */
  async function runningStatements(): Promise<string[]> {
    const [rows] = await locker.query<RowDataPacket[]>(
      `SELECT INFO FROM information_schema.PROCESSLIST
        WHERE DB = ? AND COMMAND = 'Query' AND ID <> CONNECTION_ID() AND INFO NOT LIKE '%PROCESSLIST%'`,
      [target.database],
    );
    return rows.map((row) => String(row.INFO));
  }

  /** Starts an export; `response` resolves once its status line has come. */
  function startExport(token: string, path: string = exportPath(NDJSON)) {
    const call = httpRequest(`${base}${path}`, { headers: { ...bearer(token) } });
    const response = new Promise<IncomingMessage>((resolve, reject) => {
      call.on('response', resolve).on('error', reject).end();
    });
    return { response, abort: () => void call.destroy() };
  }

  /** Reads a response to its end, or to where it was cut; says which, with the text received. */
  async function readToTheEnd(response: IncomingMessage): Promise<{ ending: string; body: string }> {
    let body = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => (body += chunk));
    const ending = await new Promise<string>((resolve) => {
      response.on('end', () => resolve(response.complete ? 'end' : 'cut'));
      response.on('aborted', () => resolve('cut'));
      response.on('error', () => resolve('cut'));
    });
    return { ending, body };
  }

  const lockOrders = () => locker.query('LOCK TABLES orders WRITE, order_seats WRITE');
  const unlock = () => locker.query('UNLOCK TABLES');
  const exportAs = (token: string) => api(context.server, token).get(exportPath(CSV));

  it('refuses a second export of the same caller with 429 while one runs, and lets other callers export', async () => {
    await lockOrders();
    const held = startExport(adminToken(41));
    await waitFor('the export to wait on the lock', async () => (await runningStatements()).length > 0);
    const refused = await exportAs(adminToken(41));
    expect(expectProblem(refused, 429).type).toBe('/problems/exports-running');
    expect(refused.headers['retry-after']).toBe('5');
    const other = startExport(adminToken(42));
    await waitFor('the other export to wait too', async () => (await runningStatements()).length > 1);
    await unlock();
    for (const started of [held, other]) {
      const response = await started.response;
      expect(response.statusCode).toBe(200);
      expect((await readToTheEnd(response)).ending).toBe('end');
    }
    // Its slot was given back when it ended.
    expect((await exportAs(adminToken(41))).status).toBe(200);
  }, 60_000);

  it.each([exportPath(NDJSON), withReason('/orders/export.xlsx')])(
    'stops the statement running within a second of the client going away (%s)',
    async (path) => {
      await lockOrders();
      try {
        const started = startExport(adminToken(43), path);
        started.response.catch(() => undefined);
        await waitFor('the export to wait on the lock', async () => (await runningStatements()).length > 0);
        started.abort();
        // Only KILL QUERY can end it while the lock is held.
        await waitFor('no statement left running', async () => (await runningStatements()).length === 0, {
          timeoutMs: 1000,
        });
      } finally {
        await unlock();
      }
      // The caller's slot is free, and the pool serves on without the closed connection.
      expect((await exportAs(adminToken(43))).status).toBe(200);
    },
    30_000,
  );

  it('answers 503 problem+json when the first batch cannot be read, before any byte of the export', async () => {
    await lockOrders();
    try {
      expectProblem(await exportAs(adminToken(44)), 503);
    } finally {
      await unlock();
    }
  }, 30_000);

  it('closes the connection without the final chunk when a batch fails after the first byte', async () => {
    // Statements within a walk's bound are those of the batches after the first.
    proxy.holdStatementsMatching(/`id` <= \d+/);
    try {
      const response = await startExport(adminToken(45)).response;
      expect(response.statusCode).toBe(200);
      const { ending, body } = await readToTheEnd(response);
      expect(ending).toBe('cut');
      const lines = body.split('\n').filter(Boolean);
      expect(lines.length).toBeGreaterThanOrEqual(EXPORT_BATCH_SIZE);
      expect(body).not.toContain('"complete":true');
    } finally {
      proxy.holdStatementsMatching(undefined);
    }
  }, 30_000);
});
