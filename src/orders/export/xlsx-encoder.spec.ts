import { describe, expect, it } from '@jest/globals';
import ExcelJS from 'exceljs';
import type { AdminOrderDto } from '../dto/order.dto';
import { ADMIN_COLUMNS, USER_COLUMNS } from './export-columns';
import { spreadsheetSerialOf, XlsxEncoder } from './xlsx-encoder';

const order = (orderId: number): AdminOrderDto => ({
  orderId,
  userId: 42,
  concertId: 7,
  seats: [
    { seatPriceId: 1201, price: 55000 },
    { seatPriceId: 1202, price: 120.5 },
  ],
  totalPrice: 55120.5,
  status: '결제 완료',
  createdAt: '2026-03-01T19:30:05',
  updatedAt: '2026-03-01T19:31:40',
});

async function* batchesOf(batches: AdminOrderDto[][]): AsyncGenerator<AdminOrderDto[]> {
  for (const batch of batches) yield await Promise.resolve(batch);
}

/** The workbook an encoder writes for these batches, read back by exceljs's own reader. */
async function workbookOf(encoder: XlsxEncoder, batches: AdminOrderDto[][]): Promise<ExcelJS.Workbook> {
  const chunks: Buffer[] = [];
  for await (const chunk of encoder.encode(batchesOf(batches))) chunks.push(chunk);
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(Buffer.concat(chunks) as unknown as ArrayBuffer);
  return workbook;
}

const rowsOf = (sheet: ExcelJS.Worksheet): unknown[][] =>
  sheet.getSheetValues().flatMap((row) => (Array.isArray(row) ? [row.slice(1)] : []));

describe('XLSX export (docs/API.md §13)', () => {
  it('writes a header of the field names, then one row per order with typed cells', async () => {
    const workbook = await workbookOf(new XlsxEncoder(ADMIN_COLUMNS.fields), [[order(1)], [order(2)]]);
    const [sheet] = workbook.worksheets;
    expect(sheet.name).toBe('orders');
    expect(rowsOf(sheet)[0]).toEqual(ADMIN_COLUMNS.columns);
    const cells = sheet.getRow(2);
    expect(cells.getCell(1).value).toBe(1);
    expect(cells.getCell(2).value).toBe(42);
    expect(cells.getCell(4).value).toBe('1201:55000;1202:120.5');
    expect(cells.getCell(5).value).toBe(55120.5);
    expect(cells.getCell(6).value).toBe('결제 완료');
    // A date-time cell, read back as the same wall-clock time (a spreadsheet has no zone: the reader says UTC).
    expect(cells.getCell(7).value).toEqual(new Date('2026-03-01T19:30:05Z'));
    expect(cells.getCell(7).numFmt).toBe('yyyy-mm-dd"T"hh:mm:ss');
    expect(sheet.getRow(3).getCell(1).value).toBe(2);
  });

  it('freezes the header row and filters every row of the sheet', async () => {
    const workbook = await workbookOf(new XlsxEncoder(ADMIN_COLUMNS.fields), [[order(1), order(2), order(3)]]);
    const [sheet] = workbook.worksheets;
    expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(sheet.autoFilter).toBe('A1:H4');
  });

  it('leaves userId out of a member’s workbook', async () => {
    const workbook = await workbookOf(new XlsxEncoder(USER_COLUMNS.fields), [[order(1)]]);
    const [header, row] = rowsOf(workbook.worksheets[0]);
    expect(header).toEqual(USER_COLUMNS.columns);
    expect(header).not.toContain('userId');
    expect(row[0]).toBe(1);
    expect(row[1]).toBe(7);
  });

  it('goes on in a further sheet, with its own header, past a sheet’s rows', async () => {
    // Three rows a sheet: the header and two orders.
    const workbook = await workbookOf(new XlsxEncoder(ADMIN_COLUMNS.fields, 3), [
      [order(1), order(2), order(3)],
      [order(4), order(5)],
    ]);
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual(['orders', 'orders 2', 'orders 3']);
    expect(workbook.worksheets.map((sheet) => rowsOf(sheet).map((row) => row[0]))).toEqual([
      ['orderId', 1, 2],
      ['orderId', 3, 4],
      ['orderId', 5],
    ]);
    expect(workbook.worksheets.map((sheet) => sheet.autoFilter)).toEqual(['A1:H3', 'A1:H3', 'A1:H2']);
  });

  it('writes a workbook with only its header for an export that matches nothing', async () => {
    const workbook = await workbookOf(new XlsxEncoder(ADMIN_COLUMNS.fields), [[]]);
    expect(rowsOf(workbook.worksheets[0])).toEqual([ADMIN_COLUMNS.columns]);
  });

  it('stops reading batches once its reader stops', async () => {
    let pulled = 0;
    let closed = false;
    async function* endless(): AsyncGenerator<AdminOrderDto[]> {
      try {
        for (;;) {
          pulled += 1;
          yield await Promise.resolve(Array.from({ length: 500 }, (_, index) => order(pulled * 1000 + index)));
        }
      } finally {
        closed = true;
      }
    }
    const chunks = new XlsxEncoder(ADMIN_COLUMNS.fields).encode(endless())[Symbol.asyncIterator]();
    expect((await chunks.next()).done).toBe(false);
    await chunks.return(undefined);
    expect(closed).toBe(true);
    const pulledWhenStopped = pulled;
    await new Promise((resolve) => setImmediate(resolve));
    expect(pulled).toBe(pulledWhenStopped);
  });

  it('turns a local date-time into the spreadsheet serial of the same wall-clock time', () => {
    expect(spreadsheetSerialOf('1970-01-01T00:00:00')).toBe(25_569);
    expect(spreadsheetSerialOf('2026-03-01T12:00:00')).toBe(46_082.5);
    expect(() => spreadsheetSerialOf('2026-03-01')).toThrow('Not a local date-time');
  });
});
