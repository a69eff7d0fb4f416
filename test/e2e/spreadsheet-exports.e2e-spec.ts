import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse } from 'csv-parse/sync';
import type request from 'supertest';
import { XLSX_ROWS_PER_SHEET } from '../../src/orders/export/order-exports';
import { EXPORT_BATCH_SIZE } from '../../src/orders/export/export-batches';
import { XLSX_MEDIA_TYPE } from '../../src/orders/export/xlsx-encoder';
import { api, withReason } from '../support/app/api-client';
import { flatXmlRows, SpreadsheetProgram } from '../support/app/spreadsheet-program';
import { freshMysqlDatabase, mysqlEnvironment } from '../support/app/test-database';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { adminToken, userToken } from '../support/app/tokens';
import { buildDataset, MEMBERS, plantOrders, type TestOrder } from '../support/data/dataset';

/** A status another service stored that a spreadsheet would run as a formula: the CSV guards it with a `'`. */
const FORMULA_STATUS = '=HYPERLINK("x",1)';
const ORDERS = EXPORT_BATCH_SIZE * 2 + 600;
/** Low enough that the export below fills two sheets and part of a third, each with its header row. */
const ROWS_PER_SHEET = 1000;
const SORT = 'sort=status&sort=totalPrice,desc';
const CELL_TYPES = {
  orderId: 'float',
  userId: 'float',
  concertId: 'float',
  totalPrice: 'float',
  status: 'string',
  createdAt: 'date',
  updatedAt: 'date',
} as const;

/** A body read whole as bytes, whatever its type. */
function bytesParser(response: request.Response, done: (error: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  const stream = response as unknown as NodeJS.ReadableStream;
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('end', () => done(null, Buffer.concat(chunks)));
}

/** Calc writes a date-time at midnight as the date alone. */
const localDateTime = (value = ''): string => value.replace(/^(\d{4}-\d{2}-\d{2})$/, '$1T00:00:00');

const rowsOf = (csv: string): string[][] => parse(csv, { bom: false });

/**
 * The spreadsheet exports (docs/API.md §13) as a desktop opens them, by LibreOffice Calc: the XLSX export holds what
 * the CSV export holds, cell for cell as shown, its numbers and date-times typed; past a sheet's rows it goes on in
 * the next sheet; and the CSV with a byte-order mark is read as UTF-8.
 */
describe.each(['sqlite', 'mysql'] as const)('spreadsheet exports on %s, opened by LibreOffice', (database) => {
  let context: TestApp;
  let program: SpreadsheetProgram;
  let orders: TestOrder[];

  beforeAll(async () => {
    const environment = database === 'mysql' ? mysqlEnvironment(await freshMysqlDatabase('spreadsheets')) : {};
    context = await startTestApp({ ...environment, RATE_LIMIT_PER_MINUTE: '0' }, [
      { token: XLSX_ROWS_PER_SHEET, value: ROWS_PER_SHEET },
    ]);
    orders = buildDataset(7373, ORDERS);
    orders[11] = { ...orders[11], status: FORMULA_STATUS };
    await plantOrders(context.dataSource, orders);
    program = await SpreadsheetProgram.open();
  }, 120_000);

  afterAll(async () => {
    await program?.close();
    await context?.close();
  });

  async function download(token: string, path: string): Promise<Buffer> {
    const response = await api(context.server, token).get(withReason(path)).buffer(true).parse(bytesParser);
    expect(response.status).toBe(200);
    return response.body as Buffer;
  }

  /** The CSV export's rows, with the `'` that guards a formula-like text taken off: a typed text cell needs none. */
  async function csvExport(token: string, query: string): Promise<string[][]> {
    const rows = rowsOf((await download(token, `/orders/export.csv?${query}`)).toString('utf8'));
    return rows.map((row) => row.map((cell) => (/^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell)));
  }

  async function xlsxExport(token: string, query: string): Promise<Buffer> {
    const workbook = await download(token, `/orders/export.xlsx?${query}`);
    // A zip's local file header: the body is the workbook, not a problem document.
    expect(workbook.subarray(0, 4)).toEqual(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
    return workbook;
  }

  it('goes on in further sheets past the rows of one, each with its header: together they are the CSV export', async () => {
    const expected = await csvExport(adminToken(), SORT);
    expect(expected.length - 1).toBe(orders.length);
    const sheets = (await program.sheetsAsCsv(await xlsxExport(adminToken(), SORT))).map(rowsOf);
    const perSheet = ROWS_PER_SHEET - 1;
    expect(sheets.map((rows) => rows.length - 1)).toEqual([perSheet, perSheet, orders.length - 2 * perSheet]);
    for (const rows of sheets) expect(rows[0]).toEqual(expected[0]);
    expect(sheets.flatMap((rows) => rows.slice(1))).toEqual(expected.slice(1));
    // The labels came through intact, and the stored formula-like status as the text it is.
    expect(expected.slice(1).map((row) => row[5])).toEqual(expect.arrayContaining(['결제 완료', FORMULA_STATUS]));
  }, 120_000);

  it('types its cells: numbers as numbers, and createdAt and updatedAt as date-times in APP_TIMEZONE', async () => {
    const query = `userId=${MEMBERS[0]}&sort=createdAt`;
    const [header, ...expected] = await csvExport(adminToken(), query);
    const [sheetHeader, ...rows] = flatXmlRows(
      await program.asFlatXml('member.xlsx', await xlsxExport(adminToken(), query)),
    );
    expect(sheetHeader.slice(0, header.length).map((cell) => cell.text)).toEqual(header);
    expect(rows.length).toBeGreaterThanOrEqual(expected.length);
    expected.forEach((csvRow, index) => {
      const cells = rows[index];
      for (const [field, type] of Object.entries(CELL_TYPES)) {
        const column = header.indexOf(field);
        expect({ field, type: cells[column].type }).toEqual({ field, type });
        // A date-time's value is the local time the CSV shows; a number's value is the number.
        expect(cells[column].type === 'string' ? cells[column].text : localDateTime(cells[column].value)).toBe(
          csvRow[column],
        );
      }
    });
  }, 120_000);

  it("holds only a member's own orders, without a userId column", async () => {
    const member = MEMBERS[2];
    const expected = await csvExport(userToken(member), 'sort=totalPrice');
    expect(expected[0]).not.toContain('userId');
    expect(expected.length - 1).toBe(orders.filter((order) => order.userId === member).length);
    const [sheet] = (await program.sheetsAsCsv(await xlsxExport(userToken(member), 'sort=totalPrice'))).map(rowsOf);
    expect(sheet).toEqual(expected);
  }, 120_000);

  it('holds only the fields named, as the CSV export does, when a spreadsheet program opens it', async () => {
    const query = `userId=${MEMBERS[1]}&sort=totalPrice&fields=status,orderId,totalPrice`;
    const expected = await csvExport(adminToken(), query);
    expect(expected[0]).toEqual(['orderId', 'totalPrice', 'status']);
    const [sheet] = (await program.sheetsAsCsv(await xlsxExport(adminToken(), query))).map(rowsOf);
    expect(sheet).toEqual(expected);
  }, 120_000);

  it('sends a CSV with a byte-order mark on request, which LibreOffice reads as UTF-8 with the labels intact', async () => {
    const query = `userId=${MEMBERS[1]}&sort=totalPrice`;
    const marked = await download(adminToken(), `/orders/export.csv?${query}&bom=true`);
    const plain = await download(adminToken(), `/orders/export.csv?${query}`);
    expect(marked).toEqual(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), plain]));
    // The charset token left empty: LibreOffice decides from the file, as a desktop's import dialog does.
    const rows = flatXmlRows(await program.asFlatXml('orders.csv', marked, '44,34,,1'));
    const expected = rowsOf(plain.toString('utf8'));
    // The mark is taken as the encoding's, not as part of the first header cell.
    expect(rows[0].slice(0, expected[0].length).map((cell) => cell.text)).toEqual(expected[0]);
    const status = expected[0].indexOf('status');
    expect(rows.slice(1, expected.length).map((row) => row[status].text)).toEqual(
      expected.slice(1).map((row) => row[status]),
    );
    expect(rows.slice(1).map((row) => row[status].text)).toContain('결제 완료');
  }, 120_000);

  it('names the workbook and its media type', async () => {
    const response = await api(context.server, adminToken()).head(withReason('/orders/export.xlsx'));
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(XLSX_MEDIA_TYPE);
    expect(response.headers['content-disposition']).toBe('attachment; filename="orders.xlsx"');
  });
});
