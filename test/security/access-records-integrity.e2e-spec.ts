import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { createConnection, type Connection, type RowDataPacket } from 'mysql2/promise';
import { spawnSync } from 'node:child_process';
import { get as httpGet } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Response } from 'supertest';
import { DateTime } from 'luxon';
import { waitFor } from '../../launchers/wait-for';
import { recordForm, sha256, CHAIN_START } from '../../src/access-records/access-record';
import { AccessRecordReader, type ListedRecord } from '../../src/access-records/access-record-reader';
import { AccessRecorder } from '../../src/access-records/access-recorder';
import { sqlTime } from '../../src/access-records/access-record-store';
import { SealKey } from '../../src/access-records/seal';
import { Metrics } from '../../src/observability/metrics';
import { EXPORT_BATCH_SIZE } from '../../src/orders/export/export-batches';
import { expectProblem } from '../support/assertions/problem';
import { buildDataset, MEMBERS, plantOrders } from '../support/data/dataset';
import { freshMysqlDatabase, mysqlEnvironment, type MysqlTarget } from '../support/app/test-database';
import { startTestApp, TEST_SEAL_KEY, type TestApp } from '../support/app/test-app';
import { adminToken, userToken } from '../support/app/tokens';
import { api, bearer, withReason } from '../support/app/api-client';

const REQUEST_ID = 'x-request-id';
const ORDERS = EXPORT_BATCH_SIZE * 4;
const RECORDS_ACCOUNT = 'records_integrity';
const RECORDS_PASSWORD = 'records-password';
const PUBLIC_KEY = new SealKey(TEST_SEAL_KEY).publicKey.toString('base64');
const HOSTILE_REASON = `=HYPERLINK("http://evil.example","x"), '; DROP TABLE orders; --`;

/**
 * docs/API.md §21 on real MariaDB, as operators run it: two instances write records through an account that may only
 * INSERT, `npm run access-records` verifies, lists, reports and purges them, tampering of each kind is named, and
 * with records failing administrators get the typed 503 with no data while members are served.
 */
describe('access records kept by two instances (docs/API.md §21)', () => {
  let target: MysqlTarget;
  let root: Connection;
  let first: TestApp;
  let second: TestApp;
  let firstUrl: string;

  /** `npm run access-records -- …` as the compiled command runs, with the public key alone. */
  const command = (args: string[], encoding: 'utf8' | 'buffer' = 'utf8') =>
    spawnSync(process.execPath, ['dist/cli/access-records.js', ...args], {
      encoding: encoding as BufferEncoding,
      timeout: 60_000,
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'test',
        ...mysqlEnvironment(target),
        ACCESS_RECORD_SEAL_PUBLIC_KEYS: PUBLIC_KEY,
        APP_TIMEZONE: 'Asia/Seoul',
      },
    });
  const verify = () => {
    const result = command(['verify']);
    return { status: result.status, output: `${result.stdout}${result.stderr}` };
  };
  const sealBoth = async () => {
    await first.app.get(AccessRecorder).seal(false);
    await second.app.get(AccessRecorder).seal(false);
  };
  const records = () => new AccessRecordReader(first.dataSource).list(new Date(0), new Date(Date.now() + 60_000));
  const byRequest = async (responses: Response[]) => {
    const all = await records();
    return responses.map((response) => all.filter(({ requestId }) => requestId === response.headers[REQUEST_ID]));
  };
  const rows = async (sql: string, values: unknown[] = []) => (await root.query<RowDataPacket[]>(sql, values))[0];
  const startInstance = (account: Record<string, string>) =>
    startTestApp({
      ...mysqlEnvironment(target),
      ...account,
      RATE_LIMIT_PER_MINUTE: '0',
      EXPORTS_PER_CALLER: '10',
      // Room for an export's first batch and its record on a machine running other suites; the hung INSERTs below
      // wait for it in full.
      DB_QUERY_TIMEOUT_MS: '3000',
      ACCESS_REVIEW_ORDERS: String(ORDERS * 2),
    });
  const recordsAccount = { ACCESS_RECORD_DB_USERNAME: RECORDS_ACCOUNT, ACCESS_RECORD_DB_PASSWORD: RECORDS_PASSWORD };

  beforeAll(async () => {
    target = await freshMysqlDatabase('access_integrity');
    root = await createConnection({ ...target, timezone: 'Z', multipleStatements: true });
    // The grants of docs/DEPLOYING.md, "Access records", on this test's database.
    await root.query(`DROP USER IF EXISTS '${RECORDS_ACCOUNT}'@'%'`);
    await root.query(`CREATE USER '${RECORDS_ACCOUNT}'@'%' IDENTIFIED BY '${RECORDS_PASSWORD}'`);
    for (const table of ['access_records', 'access_record_ends', 'access_record_seals']) {
      await root.query(`GRANT INSERT ON \`${target.database}\`.${table} TO '${RECORDS_ACCOUNT}'@'%'`);
    }
    first = await startInstance(recordsAccount);
    second = await startInstance(recordsAccount);
    await plantOrders(first.dataSource, buildDataset(8181, ORDERS));
    await first.app.listen(0, '127.0.0.1');
    firstUrl = `http://127.0.0.1:${(first.app.getHttpServer().address() as AddressInfo).port}`;
  }, 120_000);

  afterAll(async () => {
    await first?.close();
    await second?.close();
    await root?.query(`DROP USER IF EXISTS '${RECORDS_ACCOUNT}'@'%'`);
    await root?.end();
  });

  it('has the server refuse the records account’s UPDATE and DELETE, and the service find it so', async () => {
    const account = await createConnection({ ...target, user: RECORDS_ACCOUNT, password: RECORDS_PASSWORD });
    try {
      for (const sql of [
        'UPDATE access_records SET status = 0',
        'DELETE FROM access_records',
        'SELECT * FROM access_records',
      ]) {
        await expect(account.query(sql)).rejects.toMatchObject({ code: 'ER_TABLEACCESS_DENIED_ERROR' });
      }
    } finally {
      await account.end();
    }
    const mayChange = async (app: TestApp) =>
      (await app.app.get(Metrics).registry.getSingleMetric('access_record_account_may_change')?.get())?.values[0]
        ?.value;
    expect(await mayChange(first)).toBe(0);
    // The test's root account may change anything: the service says so.
    const broad = await startInstance({});
    try {
      expect(await mayChange(broad)).toBe(1);
    } finally {
      await broad.close();
    }
  });

  it('under load on two instances, gives every administrator’s answer exactly one record, and a member’s none', async () => {
    const instances = [first, second];
    const filters = ['orderStatus=PAYMENT_COMPLETED', 'sort=totalPrice,desc', 'userId=3', 'page=4'];
    const calls = [
      ...Array.from({ length: 60 }, (_, index) => ({
        admin: true,
        run: () => {
          const caller = api(instances[index % 2].server, adminToken(9000 + (index % 3)));
          return index % 10 === 9
            ? caller.get(withReason('/orders/export.ndjson?orderStatus=REFUNDED'))
            : caller.get(`/orders?size=50&${filters[index % filters.length]}`);
        },
      })),
      ...Array.from({ length: 40 }, (_, index) => ({
        admin: false,
        run: () => api(instances[index % 2].server, userToken(MEMBERS[index % MEMBERS.length])).get('/orders?size=20'),
      })),
    ].sort(() => Math.random() - 0.5);
    const answered: { admin: boolean; response: Response }[] = [];
    // Eight at a time, as a back-office and members' browsers do.
    for (let start = 0; start < calls.length; start += 8) {
      const batch = calls.slice(start, start + 8);
      const responses = await Promise.all(batch.map(({ run }) => run()));
      answered.push(...responses.map((response, index) => ({ admin: batch[index].admin, response })));
    }
    expect(answered.map(({ response }) => response.status)).toEqual(answered.map(() => 200));
    const found = await byRequest(answered.map(({ response }) => response));
    answered.forEach(({ admin, response }, index) => {
      expect(found[index]).toHaveLength(admin ? 1 : 0);
      const [record] = found[index];
      if (record?.action !== 'view') return;
      const elements = (response.body as { elements: Array<{ userId: number }> }).elements;
      expect(record.members).toEqual([...new Set(elements.map(({ userId }) => userId))].sort((a, b) => a - b));
      expect(record.orders).toBe(elements.length);
    });
    // Both instances wrote, each in a chain of its own.
    expect(new Set((await records()).map(({ chain }) => chain)).size).toBeGreaterThanOrEqual(2);
    await sealBoth();
    const verified = verify();
    expect(verified.output).toMatch(/^Intact: /m);
    expect(verified.status).toBe(0);
  }, 120_000);

  it('records an export the client cut after its first bytes as incomplete, with what was sent', async () => {
    const requestId = await new Promise<string>((resolve, reject) => {
      const path = withReason('/orders/export.csv');
      const call = httpGet(`${firstUrl}${path}`, { headers: bearer(adminToken(9100)) }, (response) => {
        response.once('data', () => {
          resolve(String(response.headers[REQUEST_ID]));
          call.destroy();
        });
      });
      call.on('error', reject);
    });
    const record = await waitFor('the cut export’s end', async () => {
      const found = (await records()).find((candidate) => candidate.requestId === requestId);
      return found?.bytes !== null && found;
    });
    expect(record).toMatchObject({ action: 'download', status: 200, complete: false, flagged: false });
    expect(record.bytes).toBeGreaterThan(0);
    expect(record.orders).toBeLessThan(ORDERS);
    // The position of its server as the first batch was read: none where the server keeps no binary log.
    const [{ position }] = await rows('SELECT @@global.gtid_current_pos AS position');
    expect(record.position).toBe(position === '' ? null : expect.stringMatching(/^\d+-\d+-\d+/));
  });

  it('answers administrators 503 with no data while records fail, members 200, and serves them again after', async () => {
    const adminPage = () => api(first.server, adminToken()).get('/orders?size=5');
    const memberPage = () => api(first.server, userToken(MEMBERS[0])).get('/orders?size=5');
    const refused = (response: Response) => {
      expect(expectProblem(response, 503)).toMatchObject({ type: '/problems/access-record-unavailable' });
      expect(response.body).not.toHaveProperty('elements');
      expect(response.headers['content-disposition']).toBeUndefined();
    };

    await root.query('RENAME TABLE access_records TO access_records_away');
    try {
      refused(await adminPage());
      refused(await api(first.server, adminToken()).get(withReason('/orders/export.csv')));
      expect((await memberPage()).status).toBe(200);
    } finally {
      await root.query('RENAME TABLE access_records_away TO access_records');
    }
    expect((await adminPage()).status).toBe(200);

    // Inserts that hang: refused within the request's deadline (DB_QUERY_TIMEOUT_MS, 3 s here).
    const locker = await createConnection(target);
    await locker.query('LOCK TABLES access_records WRITE');
    try {
      refused(await adminPage());
      expect((await memberPage()).status).toBe(200);
    } finally {
      await locker.query('UNLOCK TABLES');
      await locker.end();
    }
    expect((await adminPage()).status).toBe(200);
    const failures = await first.app.get(Metrics).registry.getSingleMetric('access_record_failures_total')?.get();
    const failed = (reason: string) =>
      failures?.values.filter(({ labels }) => labels.reason === reason).reduce((sum, { value }) => sum + value, 0);
    expect(failed('database')).toBeGreaterThanOrEqual(2);
    expect(failed('timeout')).toBeGreaterThanOrEqual(1);
    // A chain left at an INSERT whose outcome was unknown is sealed where it was known: the store still verifies.
    await sealBoth();
    expect(verify().status).toBe(0);
  }, 60_000);

  describe('verify names each kind of tampering', () => {
    let saved: RowDataPacket[];
    const recordRows = () => rows('SELECT * FROM access_records ORDER BY id');
    const restore = async (table: string, removed: RowDataPacket[]) => {
      for (const row of removed) await root.query(`INSERT INTO ${table} SET ?`, [row]);
    };
    const tampered = (pattern: RegExp) => {
      const result = verify();
      expect(result.output).toMatch(pattern);
      expect(result.status).toBe(1);
    };

    beforeAll(async () => {
      await sealBoth();
      saved = await recordRows();
      expect(verify().status).toBe(0);
    });

    afterAll(() => {
      expect(verify().status).toBe(0);
    });

    /** Two records next to each other in one chain, neither its first. */
    const neighbours = () => {
      const chain = saved.filter((row) => row.chain === saved[0].chain);
      return [chain[2], chain[3]];
    };

    it('an edited field', async () => {
      const [row] = neighbours();
      await root.query('UPDATE access_records SET reason = ? WHERE id = ?', ['nothing happened', row.id]);
      tampered(new RegExp(`TAMPERED: record #${row.id} .* was edited`));
      await root.query('UPDATE access_records SET reason = ? WHERE id = ?', [row.reason, row.id]);
    });

    it('a deleted record', async () => {
      const [row] = neighbours();
      await root.query('DELETE FROM access_records WHERE id = ?', [row.id]);
      tampered(new RegExp(`TAMPERED: chain ${row.chain}: entry ${row.seq} was deleted`));
      await restore('access_records', [row]);
    });

    it('an inserted record', async () => {
      const [row] = neighbours();
      await root.query('INSERT INTO access_records SET ?', [{ ...row, id: undefined, request_id: 'forged' }]);
      tampered(/TAMPERED: record #\d+ .* shares its place with record #\d+: one of them was inserted/);
      await root.query("DELETE FROM access_records WHERE request_id = 'forged'");
    });

    it('two records swapped', async () => {
      const [a, b] = neighbours();
      const swap = 'UPDATE access_records SET id = ? WHERE id = ?';
      await root.query(`${swap}; ${swap}; ${swap}`, [4_000_000_000, a.id, a.id, b.id, b.id, 4_000_000_000]);
      tampered(/TAMPERED: .* reordered/);
      await root.query(`${swap}; ${swap}; ${swap}`, [4_000_000_000, a.id, a.id, b.id, b.id, 4_000_000_000]);
    });

    it('the last records cut away', async () => {
      // A chain's last two entries, records or export ends, up to its sealed head.
      const { chain } = saved[0];
      const entries = [
        ...(await rows('SELECT * FROM access_records WHERE chain = ?', [chain])).map((row) => ({
          table: 'access_records',
          row,
        })),
        ...(await rows('SELECT * FROM access_record_ends WHERE chain = ?', [chain])).map((row) => ({
          table: 'access_record_ends',
          row,
        })),
      ].sort((a, b) => Number(a.row.seq) - Number(b.row.seq));
      const cut = entries.slice(-2);
      for (const { table, row } of cut) await root.query(`DELETE FROM ${table} WHERE id = ?`, [row.id]);
      try {
        tampered(new RegExp(`TAMPERED: chain ${chain}: entries ${cut[0].row.seq}–${cut[1].row.seq} were cut away`));
      } finally {
        for (const { table, row } of cut) await restore(table, [row]);
      }
    });

    it('a whole instance’s chain removed, its seals with it', async () => {
      // The second instance seals last: its seal names the first's chain.
      await first.app.get(AccessRecorder).seal(false);
      await api(second.server, adminToken()).get('/orders?size=1');
      await second.app.get(AccessRecorder).seal(false);
      const [{ chain }] = await rows(
        'SELECT chain FROM access_record_seals WHERE id < (SELECT MAX(id) FROM access_record_seals) ORDER BY id DESC LIMIT 1',
      );
      const removed = {
        access_records: await rows('SELECT * FROM access_records WHERE chain = ?', [chain]),
        access_record_ends: await rows('SELECT * FROM access_record_ends WHERE chain = ?', [chain]),
        access_record_seals: await rows('SELECT * FROM access_record_seals WHERE chain = ?', [chain]),
      };
      for (const table of Object.keys(removed)) await root.query(`DELETE FROM ${table} WHERE chain = ?`, [chain]);
      tampered(new RegExp(`TAMPERED: chain ${chain} \\(\\d+ entries by seal #\\d+\\) is gone: removed whole`));
      for (const [table, removedRows] of Object.entries(removed)) await restore(table, removedRows);
    });
  });

  it('stores a hostile reason as text, and the list and the review keep it one cell', async () => {
    const path = `/orders/export.csv?orderStatus=CANCELLED&reason=${encodeURIComponent(HOSTILE_REASON)}`;
    const exported = await api(first.server, adminToken(9200)).get(path);
    expect({ status: exported.status, problem: exported.status === 200 ? undefined : exported.text }).toEqual({
      status: 200,
      problem: undefined,
    });
    const long = await api(first.server, adminToken(9200)).get(`/orders/export.csv?reason=${'x'.repeat(600)}`);
    expectProblem(long, 400, ['reason']);
    // 10 kB passes the query string's limit (docs/API.md §3): refused before the caller is known, no data sent.
    const huge = await api(first.server, adminToken(9200)).get(`/orders/export.csv?reason=${'x'.repeat(10_000)}`);
    expectProblem(huge, 414);
    await waitFor('the export’s end', async () =>
      (await records()).some(({ reason, complete }) => reason === HOSTILE_REASON && complete === true),
    );

    const month = DateTime.now().setZone('Asia/Seoul').toFormat('yyyy-MM');
    const report = command(['report', '--month', month, '--format', 'csv']);
    expect(report.status).toBe(0);
    const cells: string[][] = parse(String(report.stdout));
    const [header, ...lines] = cells;
    const line = lines.find((cells) => cells[header.indexOf('identifier')] === '9200');
    // A spreadsheet would run the formula: the cell starts with a quote, as the CSV export's do.
    expect(line?.[header.indexOf('reasons')]).toBe(`'${HOSTILE_REASON}`);
    expect(line?.[header.indexOf('downloads')]).toBe('1');

    const workbook = new ExcelJS.Workbook();
    const xlsx = command(['report', '--month', month, '--format', 'xlsx'], 'buffer');
    expect(xlsx.status).toBe(0);
    await workbook.xlsx.load(xlsx.stdout as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0];
    const reasons = sheet.getColumn(header.indexOf('reasons') + 1).values.map(String);
    expect(reasons).toContain(HOSTILE_REASON);

    const listed = command(['list', '--since', new Date(Date.now() - 3_600_000).toISOString(), '--identifier', '9200']);
    const lines9200 = String(listed.stdout)
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as ListedRecord);
    expect(lines9200.map(({ status }) => status).sort()).toEqual([200, 400]);
    expect(Object.keys(lines9200[0])).toEqual([
      'id',
      'at',
      'identifier',
      'role',
      'address',
      'requestId',
      'action',
      'parameters',
      'status',
      'problem',
      'orders',
      'members',
      'bytes',
      'complete',
      'position',
      'reason',
      'fields',
      'flagged',
    ]);
    const refusedLong = lines9200.find(({ status }) => status === 400);
    expect(String((refusedLong?.parameters as { reason: string }).reason)).toHaveLength(200);
  }, 60_000);

  it('purges the months past retention whole, and verifies after', async () => {
    // A month two and a half years back, with a chain of its own and its seal, as an instance then wrote it.
    const [first_] = await rows(
      "SELECT PARTITION_NAME AS name, PARTITION_DESCRIPTION AS bound FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'access_records' ORDER BY PARTITION_ORDINAL_POSITION LIMIT 1",
    );
    const old = DateTime.utc().minus({ months: 30 }).startOf('month');
    const oldMonth = old.toFormat('yyyy-MM');
    for (const table of ['access_records', 'access_record_ends']) {
      await root.query(
        `ALTER TABLE ${table} REORGANIZE PARTITION ${first_.name} INTO (PARTITION p${old.toFormat('yyyyMM')} VALUES LESS THAN ('${old.plus({ months: 1 }).toFormat('yyyy-MM-dd')} 00:00:00'), PARTITION ${first_.name} VALUES LESS THAN (${first_.bound}))`,
      );
    }
    const chain = 'old-chain-of-a-stopped-instance';
    let prevHash = CHAIN_START;
    for (let seq = 1; seq <= 3; seq += 1) {
      const fields = {
        at: old.plus({ days: 3, minutes: seq }).toJSDate(),
        identifier: '9300',
        role: 'ADMIN',
        address: '10.0.0.9',
        requestId: `old-${seq}`,
        action: 'view' as const,
        parameters: { page: seq, size: 20 },
        status: 200,
        problem: null,
        orders: 20,
        members: [1],
        reason: null,
        fields: null,
        position: null,
      };
      const hash = sha256(recordForm({ ...fields, chain, seq, prevHash }));
      await root.query(
        'INSERT INTO access_records (recorded_at, chain, seq, prev_hash, hash, identifier, role, address, request_id, action, parameters, status, orders, members) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [
          sqlTime(fields.at),
          chain,
          seq,
          prevHash,
          hash,
          '9300',
          'ADMIN',
          '10.0.0.9',
          `old-${seq}`,
          'view',
          JSON.stringify(fields.parameters),
          200,
          20,
          '[1]',
        ],
      );
      prevHash = hash;
    }
    const seal = new SealKey(TEST_SEAL_KEY).sign({
      chain,
      month: oldMonth,
      seq: 3,
      hash: prevHash,
      at: old.plus({ days: 4 }).toJSDate(),
      final: true,
      others: {},
    });
    await root.query(
      'INSERT INTO access_record_seals (sealed_at, chain, month, seq, hash, final, others, key_id, signature) VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?)',
      [sqlTime(seal.at), chain, oldMonth, 3, seal.hash, '{}', seal.keyId, seal.signature],
    );
    await api(first.server, adminToken()).get('/orders?size=1');
    await sealBoth();
    const before = verify();
    expect(before.output).toMatch(/^Intact: /m);

    const purged = command(['purge']);
    expect(purged.stdout).toMatch(new RegExp(`^Dropped: ${oldMonth};`, 'm'));
    expect(purged.status).toBe(0);
    expect(await rows('SELECT id FROM access_records WHERE chain = ?', [chain])).toEqual([]);
    // This month's records are kept, and what was purged is known by its seal.
    expect((await records()).length).toBeGreaterThan(0);
    const after = verify();
    expect(after.output).toMatch(/^Intact: /m);
    expect(after.status).toBe(0);
  }, 60_000);
});
