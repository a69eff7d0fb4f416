import Negotiator from 'negotiator';
import { BatchBytes } from './batch-bytes';
import type { ElementField } from '../dto/element-fields';
import type { OrderElement } from '../dto/order.dto';
import { elementJsonOf } from '../page-json';
import { onlyFields, type ExportColumns } from './export-columns';
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

/** Whether `Accept` admits an export's type and not JSON (RFC 9110, negotiator): a page cannot answer it. */
export function acceptsOnlyExports(accept: string | undefined): boolean {
  // Most requests send none, or `application/json` or `*/*`: pages, without parsing anything.
  if (accept === undefined || !/csv|ndjson|spreadsheetml/i.test(accept)) return false;
  const negotiator = new Negotiator({ headers: { accept } });
  return negotiator.mediaType(['application/json']) === undefined && negotiator.mediaType(EXPORT_OFFERS) !== undefined;
}

/** What an export's caller chose of its form: a byte-order mark before a CSV, for Excel. */
export interface ExportOptions {
  byteOrderMark?: boolean;
  /** Only these of the element's fields, in its order (`fields`); every field when absent. */
  fields?: readonly string[];
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
const LF = 0x0a;

/** Written here, not with a CSV library costing four times the CPU per order; the test holds it to csv-stringify. */
export class CsvEncoder<Element extends OrderElement> extends LineEncoder {
  readonly contentType = `${EXPORT_MEDIA_TYPES.csv}; charset=utf-8; header=present`;
  readonly fileExtension = 'csv';

  constructor(
    private readonly layout: ExportColumns<Element>,
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
  private readonly elementJson: (element: OrderElement) => string;

  /** `fields`: those of each element written, in its DTO's order. */
  constructor(fields: readonly ElementField[]) {
    super();
    this.elementJson = elementJsonOf(fields);
  }

  header(): string {
    return '';
  }

  batch(elements: readonly OrderElement[]): Buffer {
    const bytes = new BatchBytes(elements.length * EXPECTED_NDJSON_BYTES);
    for (const element of elements) {
      bytes.text(this.elementJson(element));
      bytes.byte(LF);
    }
    return bytes.written();
  }

  trailer(count: number): string {
    return `${JSON.stringify({ complete: true, count })}\n`;
  }
}

/** An export's encoder: the fields of the caller's variant, only those asked for, as JSON lines, CSV or XLSX. */
export function encoderFor(
  format: ExportFormat,
  variantColumns: ExportColumns<OrderElement>,
  options: ExportOptions = {},
): ExportEncoder {
  const columns = onlyFields(variantColumns, options.fields);
  switch (format) {
    case 'ndjson':
      return new NdjsonEncoder(columns.fields);
    case 'xlsx':
      return new XlsxEncoder(columns.fields, options.rowsPerSheet);
    default:
      return new CsvEncoder(columns, options.byteOrderMark);
  }
}
