import Negotiator from 'negotiator';
import { BatchBytes } from './batch-bytes';
import type { AdminOrderDto, OrderElement, SeatDto, UserOrderDto } from '../dto/order.dto';
import type { ExportFormat } from '../model';
import type { ExportEncoder } from './export-encoder';
import { XLSX_MEDIA_TYPE, XlsxEncoder } from './xlsx-encoder';

/** The media type of each export, each the one type of an operation of its own (`GET /orders/export.csv`, …). */
export const EXPORT_MEDIA_TYPES = {
  csv: 'text/csv',
  ndjson: 'application/x-ndjson',
  xlsx: XLSX_MEDIA_TYPE,
} as const satisfies Record<ExportFormat, string>;

/** CSV is offered with its charset, so that `text/csv; charset=utf-8` is understood as well as `text/csv`. */
const EXPORT_OFFERS = [`${EXPORT_MEDIA_TYPES.csv};charset=utf-8`, EXPORT_MEDIA_TYPES.ndjson, EXPORT_MEDIA_TYPES.xlsx];

/**
 * Whether `Accept` admits an export's type and not JSON, by RFC 9110's rules (negotiator): such a client of
 * `GET /orders` wants an export, which pages cannot give it. Any other `Accept` gets the page, as it always has.
 */
export function acceptsOnlyExports(accept: string | undefined): boolean {
  // Most requests send none, or `application/json` or `*/*`: pages, without parsing anything.
  if (accept === undefined || !/csv|ndjson|spreadsheetml/i.test(accept)) return false;
  const negotiator = new Negotiator({ headers: { accept } });
  return negotiator.mediaType(['application/json']) === undefined && negotiator.mediaType(EXPORT_OFFERS) !== undefined;
}

/** What an export's caller chose of its form: a byte-order mark before a CSV, for Excel (docs/API.md §13). */
export interface ExportOptions {
  byteOrderMark?: boolean;
  /** A spreadsheet's rows per sheet; lowered only to test what comes past it. */
  rowsPerSheet?: number;
}

/** A text format: a beginning, each batch as it is read, and what only a complete export ends with. */
abstract class LineEncoder implements ExportEncoder {
  abstract readonly contentType: string;
  abstract readonly fileExtension: string;
  abstract header(): string;
  abstract batch(elements: readonly OrderElement[]): Buffer;
  abstract trailer(count: number): string;

  async *encode(batches: AsyncIterable<readonly OrderElement[]>): AsyncGenerator<Buffer | string> {
    let count = 0;
    const header = this.header();
    if (header) yield header;
    for await (const elements of batches) {
      if (elements.length > 0) yield this.batch(elements);
      count += elements.length;
    }
    const trailer = this.trailer(count);
    if (trailer) yield trailer;
  }
}

/** About what an order takes in each format, so that a batch's buffer is rarely grown. */
const EXPECTED_CSV_BYTES = 160;
const EXPECTED_NDJSON_BYTES = 320;
const COMMA = 0x2c;
const SEMICOLON = 0x3b;
const COLON = 0x3a;
const CR = 0x0d;
const LF = 0x0a;

/** `seatPriceId:price` per seat, joined by `;` (docs/API.md §13). */
function writeSeats(bytes: BatchBytes, seats: readonly SeatDto[]): void {
  for (let index = 0; index < seats.length; index += 1) {
    if (index > 0) bytes.byte(SEMICOLON);
    bytes.number(seats[index].seatPriceId);
    bytes.byte(COLON);
    bytes.number(seats[index].price);
  }
}

/** What a spreadsheet would run as a formula, the full-width forms that Apple Numbers folds to them included. */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One text cell by RFC 4180: quoted when it holds a comma, a quote or a line break, quotes doubled. A text that a
 * spreadsheet would run as a formula is written with a leading `'`: a status another service stored is text from
 * outside, and a spreadsheet is where this file goes. Numbers are written as they are, a negative one included.
 */
function textCell(text: string): string {
  const shown = FORMULA_START.test(text) ? `'${text}` : text;
  return NEEDS_QUOTES.test(shown) ? `"${shown.replaceAll('"', '""')}"` : shown;
}

/** A variant's CSV: its header's columns, and how one element is written as a record. */
export interface CsvColumns<Element extends OrderElement> {
  readonly columns: readonly string[];
  write(bytes: BatchBytes, element: Element): void;
}

/**
 * The fields of docs/API.md §4 in order, as a header and as one CRLF-ended record per element; a member's export has
 * no `userId`. Numbers are written as they are, a negative one included; a local time is digits and separators
 * (LOCAL_DATE_TIME), nothing a cell would quote or a spreadsheet run.
 */
export const USER_CSV: CsvColumns<UserOrderDto> = {
  columns: ['orderId', 'concertId', 'seats', 'totalPrice', 'status', 'createdAt', 'updatedAt'],
  write(bytes: BatchBytes, order: UserOrderDto): void {
    bytes.number(order.orderId);
    bytes.byte(COMMA);
    writeCommonCells(bytes, order);
  },
};
export const ADMIN_CSV: CsvColumns<AdminOrderDto> = {
  columns: ['orderId', 'userId', 'concertId', 'seats', 'totalPrice', 'status', 'createdAt', 'updatedAt'],
  write(bytes: BatchBytes, order: AdminOrderDto): void {
    bytes.number(order.orderId);
    bytes.byte(COMMA);
    bytes.number(order.userId);
    bytes.byte(COMMA);
    writeCommonCells(bytes, order);
  },
};

/** Every cell after `orderId` and `userId`, and the record's end. */
function writeCommonCells(bytes: BatchBytes, order: OrderElement): void {
  bytes.number(order.concertId);
  bytes.byte(COMMA);
  writeSeats(bytes, order.seats);
  bytes.byte(COMMA);
  bytes.number(order.totalPrice);
  bytes.byte(COMMA);
  bytes.text(textCell(order.status));
  bytes.byte(COMMA);
  bytes.text(order.createdAt);
  bytes.byte(COMMA);
  bytes.text(order.updatedAt);
  bytes.byte(CR);
  bytes.byte(LF);
}

/**
 * Written here rather than through a general CSV library: its per-field options cost about four times as much CPU
 * per order, most of what a CSV export cost beyond NDJSON; the cells are numbers and text,
 * and the unit test holds the output to csv-stringify's.
 */
export class CsvEncoder<Element extends OrderElement> extends LineEncoder {
  readonly contentType = `${EXPORT_MEDIA_TYPES.csv}; charset=utf-8; header=present`;
  readonly fileExtension = 'csv';

  constructor(
    private readonly layout: CsvColumns<Element>,
    private readonly byteOrderMark = false,
  ) {
    super();
  }

  /** With the mark, Excel reads the file as UTF-8 rather than in the desktop's code page (CP949 in Korea). */
  header(): string {
    return `${this.byteOrderMark ? '\uFEFF' : ''}${this.layout.columns.join(',')}\r\n`;
  }

  batch(elements: readonly OrderElement[]): Buffer {
    const bytes = new BatchBytes(elements.length * EXPECTED_CSV_BYTES);
    for (const element of elements) this.layout.write(bytes, element as Element);
    return bytes.written();
  }

  trailer(): string {
    return '';
  }
}

/** One JSON element per line, as the page shows it, and a last line that says the export is whole. */
export class NdjsonEncoder extends LineEncoder {
  readonly contentType = EXPORT_MEDIA_TYPES.ndjson;
  readonly fileExtension = 'ndjson';

  header(): string {
    return '';
  }

  batch(elements: readonly OrderElement[]): Buffer {
    const bytes = new BatchBytes(elements.length * EXPECTED_NDJSON_BYTES);
    for (const element of elements) {
      bytes.text(JSON.stringify(element));
      bytes.byte(LF);
    }
    return bytes.written();
  }

  trailer(count: number): string {
    return `${JSON.stringify({ complete: true, count })}\n`;
  }
}

/** An export's encoder: NDJSON writes each element as it is, CSV and XLSX the columns of the caller's variant. */
export function encoderFor(
  format: ExportFormat,
  csv: CsvColumns<OrderElement>,
  options: ExportOptions = {},
): ExportEncoder {
  switch (format) {
    case 'ndjson':
      return new NdjsonEncoder();
    case 'xlsx':
      return new XlsxEncoder(csv.columns, options.rowsPerSheet);
    default:
      return new CsvEncoder(csv, options.byteOrderMark);
  }
}
