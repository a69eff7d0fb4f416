import { describe, expect, it } from '@jest/globals';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import type { AdminOrderDto, UserOrderDto } from '../dto/order.dto';
import { ADMIN_COLUMNS, USER_COLUMNS } from './export-columns';
import { CsvEncoder, NdjsonEncoder, acceptsOnlyExports } from './export-format';

const admin: AdminOrderDto = {
  orderId: 1042,
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
};
const user: UserOrderDto = {
  orderId: admin.orderId,
  concertId: admin.concertId,
  seats: admin.seats,
  totalPrice: admin.totalPrice,
  status: admin.status,
  createdAt: admin.createdAt,
  updatedAt: admin.updatedAt,
};

/** What an encoder writes for these batches, as one text. */
async function text(encoder: CsvEncoder<UserOrderDto> | NdjsonEncoder, batches: UserOrderDto[][]): Promise<string> {
  async function* read() {
    for (const batch of batches) yield await Promise.resolve(batch);
  }
  let written = '';
  for await (const chunk of encoder.encode(read())) written += chunk.toString();
  return written;
}

describe('export formats (docs/API.md §13)', () => {
  describe('CSV', () => {
    const csv = new CsvEncoder(ADMIN_COLUMNS);

    it('writes a header of the field names and one CRLF-ended record per order, seats as seatPriceId:price by ;', () => {
      expect(csv.header() + csv.batch([admin]).toString()).toBe(
        'orderId,userId,concertId,seats,totalPrice,status,createdAt,updatedAt\r\n' +
          '1042,42,7,1201:55000;1202:120.5,55120.5,결제 완료,2026-03-01T19:30:05,2026-03-01T19:31:40\r\n',
      );
      expect(csv.trailer()).toBe('');
    });

    it('leaves userId out of a member’s export', () => {
      const own = new CsvEncoder(USER_COLUMNS);
      expect(own.header()).toBe('orderId,concertId,seats,totalPrice,status,createdAt,updatedAt\r\n');
      expect(own.batch([user]).toString()).toBe(
        '1042,7,1201:55000;1202:120.5,55120.5,결제 완료,2026-03-01T19:30:05,2026-03-01T19:31:40\r\n',
      );
    });

    it('quotes by RFC 4180 and keeps a spreadsheet from running a stored status as a formula', () => {
      const statuses = ['ON "HOLD", again', 'two\r\nlines', 'a lone\nbreak', '=1+1', '+1', '-1', '@SUM(A1)'];
      const text = csv.batch(statuses.map((status) => ({ ...admin, status }))).toString();
      const rows: string[][] = parse(text);
      expect(rows.map((row) => row[5])).toEqual([
        'ON "HOLD", again',
        'two\r\nlines',
        'a lone\nbreak',
        "'=1+1",
        "'+1",
        "'-1",
        "'@SUM(A1)",
      ]);
      // A negative number is a number, not a formula.
      const negative: string[][] = parse(csv.batch([{ ...admin, totalPrice: -5 }]).toString());
      expect(negative[0][4]).toBe('-5');
    });

    it('writes an order without seats with an empty seats field', () => {
      const seatless: string[][] = parse(csv.batch([{ ...admin, seats: [] }]).toString());
      expect(seatless[0][3]).toBe('');
    });

    it('writes what csv-stringify writes for CRLF records, formula escaping and any line break quoted, for any status', () => {
      const cellsOf = (order: AdminOrderDto) => [
        order.orderId,
        order.userId,
        order.concertId,
        order.seats.map(({ seatPriceId, price }) => `${seatPriceId}:${price}`).join(';'),
        order.totalPrice,
        order.status,
        order.createdAt,
        order.updatedAt,
      ];
      // Text from outside reaches the cells through `status`: quotes, separators, line breaks and formula starts,
      // full-width ones included, are what the reference treats specially. Told only of CRLF records, csv-stringify
      // leaves a lone LF or CR unquoted, which spreadsheets read as a new row: the reference is asked to quote them.
      const status = fc.string({
        unit: fc.oneof(
          fc.constantFrom('"', ',', '\r', '\n', '=', '+', '-', '@', '\t', '＝', '＋', '－', '＠'),
          fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
        ),
        maxLength: 12,
      });
      // Prices with cents and without, and any other number a column could hold.
      const money = fc.oneof(fc.nat(), fc.double({ noNaN: true, noDefaultInfinity: true }));
      fc.assert(
        fc.property(
          fc.array(
            fc.record({
              status,
              orderId: fc.maxSafeNat(),
              userId: fc.maxSafeNat(),
              concertId: fc.maxSafeNat(),
              seats: fc.array(fc.record({ seatPriceId: fc.maxSafeNat(), price: money }), { maxLength: 4 }),
              totalPrice: money,
            }),
          ),
          (rows) => {
            const orders = rows.map((row) => ({ ...admin, ...row }));
            expect(csv.batch(orders).toString()).toBe(
              stringify(orders.map(cellsOf), {
                record_delimiter: 'windows',
                escape_formulas: true,
                quoted_match: /[\r\n]/,
              }),
            );
          },
        ),
      );
    });
  });

  describe('CSV for Excel', () => {
    it('starts with a UTF-8 byte-order mark only when asked, and is otherwise the same bytes', async () => {
      const marked = Buffer.from(await text(new CsvEncoder(USER_COLUMNS, true), [[user], [user]]));
      const plain = Buffer.from(await text(new CsvEncoder(USER_COLUMNS), [[user], [user]]));
      expect([...marked.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      expect(marked.subarray(3)).toEqual(plain);
      expect(plain[0]).toBe('o'.charCodeAt(0));
    });
  });

  describe('a whole export, batch by batch', () => {
    it('writes the header once, every batch in turn, an empty batch as nothing, and the trailer with the count', async () => {
      expect(await text(new NdjsonEncoder(USER_COLUMNS.fields), [[user], [], [user]])).toBe(
        `${JSON.stringify(user)}\n${JSON.stringify(user)}\n{"complete":true,"count":2}\n`,
      );
      expect(await text(new CsvEncoder(USER_COLUMNS), [])).toBe(`${USER_COLUMNS.columns.join(',')}\r\n`);
    });
  });

  describe('NDJSON', () => {
    const ndjson = new NdjsonEncoder(USER_COLUMNS.fields);

    it('writes each element as its JSON on a line, and ends a whole export with its count', () => {
      expect(ndjson.header()).toBe('');
      expect(ndjson.batch([user, user]).toString()).toBe(`${JSON.stringify(user)}\n${JSON.stringify(user)}\n`);
      expect(ndjson.trailer(2)).toBe('{"complete":true,"count":2}\n');
    });
  });

  describe('whether Accept admits only an export, which GET /orders refuses with 406', () => {
    it.each([
      [undefined, false],
      ['application/json', false],
      ['*/*', false],
      ['text/html,application/xhtml+xml,*/*;q=0.8', false],
      ['text/csv', true],
      ['TEXT/CSV', true],
      ['text/csv; charset=utf-8', true],
      ['application/x-ndjson', true],
      ['text/csv, application/x-ndjson', true],
      ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', true],
      // JSON admitted, however reluctantly: the page.
      ['application/json;q=0.5, application/x-ndjson', false],
      ['text/csv, */*;q=0.1', false],
      ['text/csv;q=0, */*', false],
      ['text/plain', false],
    ])('%s → %s', (accept, exportOnly) => {
      expect(acceptsOnlyExports(accept)).toBe(exportOnly);
    });
  });
});
