import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { waitFor } from '../../launchers/wait-for';
import { AccessRecordReader, type ListedRecord } from '../../src/access-records/access-record-reader';
import { AccessRecorder } from '../../src/access-records/access-recorder';
import { ChainVerifier } from '../../src/access-records/chain-verification';
import { SealKey, keyIdOf, publicKeyOf } from '../../src/access-records/seal';
import { EXPORT_BATCH_SIZE } from '../../src/orders/export/export-batches';
import { expectProblem } from '../support/assertions/problem';
import { buildDataset, MEMBERS, plantOrders } from '../support/data/dataset';
import { freshMysqlDatabase, mysqlEnvironment } from '../support/app/test-database';
import { startTestApp, TEST_SEAL_KEY, type TestApp } from '../support/app/test-app';
import { adminToken, userToken } from '../support/app/tokens';
import { api, withReason } from '../support/app/api-client';

const REQUEST_ID = 'x-request-id';
const ADMIN = 9000;

/** What an administrator's page handed over: its orders and the distinct members they belong to. */
function handedOver(response: Response): { orders: number; members: number[] } {
  const elements = (response.body as { elements: Array<{ userId: number }> }).elements;
  return { orders: elements.length, members: [...new Set(elements.map(({ userId }) => userId))].sort((a, b) => a - b) };
}

/**
 * docs/API.md §21 on both databases: every administrator's request to the listing or an export leaves one access
 * record, committed before its answer, with what it handed over; a member's own leave none; the chain verifies.
 */
describe.each(['sqlite', 'mysql'] as const)('access records on %s (docs/API.md §21)', (database) => {
  let context: TestApp;
  let reader: AccessRecordReader;

  beforeAll(async () => {
    const environment = database === 'mysql' ? mysqlEnvironment(await freshMysqlDatabase('access_records')) : {};
    context = await startTestApp({ ...environment, RATE_LIMIT_PER_MINUTE: '0' });
    await plantOrders(context.dataSource, buildDataset(2121, EXPORT_BATCH_SIZE + 300));
    reader = new AccessRecordReader(context.dataSource);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
  });

  const admin = () => api(context.server, adminToken(ADMIN));
  /** The records made for these requests, by request id; a request with none is absent. */
  const recordsOf = async (responses: Response[]): Promise<Map<string, ListedRecord[]>> => {
    const ids = new Set(responses.map((response) => String(response.headers[REQUEST_ID])));
    const records = await reader.list(new Date(0), new Date(Date.now() + 60_000));
    const byRequest = new Map<string, ListedRecord[]>();
    for (const record of records.filter(({ requestId }) => ids.has(requestId))) {
      byRequest.set(record.requestId, [...(byRequest.get(record.requestId) ?? []), record]);
    }
    return byRequest;
  };

  it('records an administrator’s page once, with its orders and the members on it, before it is answered', async () => {
    const page = await admin().get('/orders?size=20&orderStatus=PAYMENT_COMPLETED&sort=totalPrice,desc');
    expect(page.status).toBe(200);
    // Committed before the answer left: it is there as soon as the answer is.
    const [record] = (await recordsOf([page])).get(String(page.headers[REQUEST_ID])) ?? [];
    expect(record).toMatchObject({
      identifier: String(ADMIN),
      role: 'ADMIN',
      action: 'view',
      status: 200,
      problem: null,
      parameters: { orderStatus: 'PAYMENT_COMPLETED', sort: 'totalPrice,desc;orderId,desc', page: 1, size: 20 },
      ...handedOver(page),
    });
    expect(record.address).toMatch(/127\.0\.0\.1$/);
    expect(Math.abs(record.at.getTime() - Date.now())).toBeLessThan(60_000);
    expect(record.orders).toBe(20);
  });

  it('records refused requests with their status and problem, and a member’s own orders not at all', async () => {
    const refused = await admin().get('/orders?size=0&userId=12');
    expectProblem(refused, 400, ['size']);
    const refusedExport = await admin().get('/orders/export.csv');
    expectProblem(refusedExport, 400, ['reason']);
    const own = await api(context.server, userToken(MEMBERS[0])).get('/orders');
    expect(own.status).toBe(200);
    const records = await recordsOf([refused, refusedExport, own]);
    expect(records.get(String(own.headers[REQUEST_ID]))).toBeUndefined();
    expect(records.get(String(refused.headers[REQUEST_ID]))).toEqual([
      expect.objectContaining({
        action: 'view',
        status: 400,
        problem: '/problems/invalid-parameters',
        parameters: { size: '0', userId: '12' },
        orders: null,
      }),
    ]);
    expect(records.get(String(refusedExport.headers[REQUEST_ID]))).toEqual([
      expect.objectContaining({ action: 'download', status: 400, reason: null }),
    ]);
  });

  it('records a download with its reason and fields, then the orders and bytes it handed over', async () => {
    const response = await admin()
      .get(withReason('/orders/export.ndjson?fields=orderId,userId'))
      .buffer(true)
      .parse((res, callback) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        res.on('end', () => callback(null, text));
      });
    expect(response.status).toBe(200);
    const lines = (response.body as string).trim().split('\n');
    const id = String(response.headers[REQUEST_ID]);
    // The end is added when the export has ended, a moment after its last byte.
    const record = await waitFor('the export’s end', async () => {
      const [found] = (await recordsOf([response])).get(id) ?? [];
      return found?.complete === true && found;
    });
    expect(record).toMatchObject({
      action: 'download',
      status: 200,
      reason: 'Checking what the listing exports, in the test suites',
      fields: ['orderId', 'userId'],
      parameters: expect.objectContaining({ format: 'ndjson', fields: ['orderId', 'userId'] }),
      orders: lines.length - 1,
      bytes: Buffer.byteLength(response.body as string),
      complete: true,
      flagged: false,
    });
    // The position of its server as the first batch was read: none on the embedded database, nor where no binary
    // log is kept.
    const [current] =
      database === 'mysql'
        ? await context.dataSource.query<{ position: string }[]>('SELECT @@global.gtid_current_pos AS position')
        : [{ position: '' }];
    expect(record.position).toEqual(current.position === '' ? null : expect.stringMatching(/^\d+-\d+-\d+/));
  });

  it('verifies as intact with only the seal key’s public half', async () => {
    await context.app.get(AccessRecorder).seal(false);
    const publicKey = new SealKey(TEST_SEAL_KEY).publicKey;
    const verifier = new ChainVerifier(await reader.seals(), new Map([[keyIdOf(publicKey), publicKeyOf(publicKey)]]));
    for (const month of await reader.months()) verifier.add(await reader.entries(month));
    const verification = verifier.finish();
    expect(verification.problems).toEqual([]);
    expect(verification.entries).toBeGreaterThanOrEqual(5);
    expect(verification.unsealed).toEqual([]);
  });
});
