import Negotiator from 'negotiator';
import type { AdminOrderDto, OrderElement, SeatDto } from '../dto/order.dto';

/** The media type of each export, each the one type of an operation of its own (`GET /orders/export.csv`, …). */
export const EXPORT_MEDIA_TYPES = { csv: 'text/csv', ndjson: 'application/x-ndjson' } as const;
export type ExportFormat = keyof typeof EXPORT_MEDIA_TYPES;

/** CSV is offered with its charset, so that `text/csv; charset=utf-8` is understood as well as `text/csv`. */
const EXPORT_OFFERS = [`${EXPORT_MEDIA_TYPES.csv};charset=utf-8`, EXPORT_MEDIA_TYPES.ndjson];

/**
 * Whether `Accept` admits an export's type and not JSON, by RFC 9110's rules (negotiator): such a client of
 * `GET /orders` wants an export, which pages cannot give it. Any other `Accept` gets the page, as it always has.
 */
export function acceptsOnlyExports(accept: string | undefined): boolean {
  // Most requests send none, or `application/json` or `*/*`: pages, without parsing anything.
  if (accept === undefined || !/csv|ndjson/i.test(accept)) return false;
  const negotiator = new Negotiator({ headers: { accept } });
  return negotiator.mediaType(['application/json']) === undefined && negotiator.mediaType(EXPORT_OFFERS) !== undefined;
}

/** How one export's elements are written: a beginning, each batch as it is read, and how a complete export ends. */
export interface ExportEncoder {
  readonly contentType: string;
  readonly fileExtension: string;
  header(): string;
  batch(elements: readonly OrderElement[]): string;
  /** What only a complete export ends with; a failed one ends without it. */
  trailer(count: number): string;
}

/** The element's fields, in the order of docs/API.md §4; a member's export has no `userId`. */
const USER_COLUMNS = ['orderId', 'concertId', 'seats', 'totalPrice', 'status', 'createdAt', 'updatedAt'] as const;
const ADMIN_COLUMNS = ['orderId', 'userId', ...USER_COLUMNS.slice(1)] as const;
type Column = (typeof ADMIN_COLUMNS)[number];

/** `seatPriceId:price` per seat, joined by `;` (docs/API.md §13). */
const seatsCell = (seats: readonly SeatDto[]): string =>
  seats.map(({ seatPriceId, price }) => `${seatPriceId}:${price}`).join(';');

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

/**
 * CRLF-ended records of the element's fields. Written here rather than through a general CSV library: its per-field
 * options cost about four times as much CPU per order, most of what a CSV export cost beyond NDJSON
 * (docs/benchmark-log.md); the cells are numbers and text, and the unit test holds the output to csv-stringify's.
 */
class CsvEncoder implements ExportEncoder {
  readonly contentType = `${EXPORT_MEDIA_TYPES.csv}; charset=utf-8; header=present`;
  readonly fileExtension = 'csv';

  constructor(private readonly columns: readonly Column[]) {}

  header(): string {
    return `${this.columns.join(',')}\r\n`;
  }

  batch(elements: readonly OrderElement[]): string {
    // Concatenated cell by cell: an array of cells per record, then joined, was most of what encoding allocated.
    let records = '';
    for (const element of elements) {
      for (let position = 0; position < this.columns.length; position += 1) {
        const column = this.columns[position];
        const value = column === 'seats' ? seatsCell(element.seats) : (element as AdminOrderDto)[column];
        records += `${position === 0 ? '' : ','}${typeof value === 'number' ? String(value) : textCell(value)}`;
      }
      records += '\r\n';
    }
    return records;
  }

  trailer(): string {
    return '';
  }
}

/** One JSON element per line, as the page shows it, and a last line that says the export is whole. */
class NdjsonEncoder implements ExportEncoder {
  readonly contentType = EXPORT_MEDIA_TYPES.ndjson;
  readonly fileExtension = 'ndjson';

  header(): string {
    return '';
  }

  batch(elements: readonly OrderElement[]): string {
    let lines = '';
    for (const element of elements) lines += `${JSON.stringify(element)}\n`;
    return lines;
  }

  trailer(count: number): string {
    return `${JSON.stringify({ complete: true, count })}\n`;
  }
}

export function encoderFor(format: ExportFormat, isAdmin: boolean): ExportEncoder {
  return format === 'csv' ? new CsvEncoder(isAdmin ? ADMIN_COLUMNS : USER_COLUMNS) : new NdjsonEncoder();
}
