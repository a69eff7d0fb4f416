import ExcelJS from 'exceljs';
import { once } from 'node:events';
import { PassThrough, type Writable } from 'node:stream';
import type { ElementField, FieldKind } from '../dto/element-fields';
import type { OrderElement, SeatDto } from '../dto/order.dto';
import type { ExportEncoder } from './export-encoder';

export const XLSX_MEDIA_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** A worksheet's rows in Excel and LibreOffice, the header row included. */
export const SPREADSHEET_MAX_ROWS = 1_048_576;

/** Shown as the API writes a local time, so that the sheet reads as the page and the CSV do. */
const DATE_TIME_FORMAT = 'yyyy-mm-dd"T"hh:mm:ss';
const MS_PER_DAY = 86_400_000;
/** Days from the spreadsheet epoch (1899-12-30) to 1970-01-01. */
const UNIX_EPOCH_SERIAL = 25_569;
const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/;

type CellValue = number | string;

interface XlsxColumn {
  value(value: never): CellValue;
  width: number;
  numFmt?: string;
}

/** A local date-time as a spreadsheet serial: the wall-clock time in APP_TIMEZONE, which a spreadsheet has no zone for. */
export function spreadsheetSerialOf(localDateTime: string): number {
  const parts = LOCAL_DATE_TIME.exec(localDateTime);
  if (!parts) throw new Error(`Not a local date-time: ${localDateTime}`);
  const [year, month, day, hour, minute, second] = parts.slice(1).map(Number);
  return Date.UTC(year, month - 1, day, hour, minute, second) / MS_PER_DAY + UNIX_EPOCH_SERIAL;
}

const seatsText = (seats: readonly SeatDto[]): string =>
  seats.map(({ seatPriceId, price }) => `${seatPriceId}:${price}`).join(';');

/** Each kind of field as a typed cell. */
const CELLS: { readonly [Kind in FieldKind]: XlsxColumn } = {
  integer: { value: (value: number) => value, width: 12 },
  number: { value: (value: number) => value, width: 12 },
  // A cell of type text is never run as a formula, so it needs none of the CSV's leading `'`.
  text: { value: (value: string) => value, width: 12 },
  localDateTime: { value: spreadsheetSerialOf, width: 20, numFmt: DATE_TIME_FORMAT },
  // A text, `seatPriceId:price` joined by `;` as in the CSV: one row per order keeps the sheet a stream.
  seats: { value: seatsText, width: 24 },
};

type Worksheet = ReturnType<ExcelJS.stream.xlsx.WorkbookWriter['addWorksheet']>;

/** The writable end that a worksheet's rows are piped into inside the workbook's zip. */
function sheetSink(sheet: Worksheet): Writable | undefined {
  return (sheet as unknown as { stream: { pipes?: Writable[] } }).stream.pipes?.[0];
}

async function drained(sheet: Worksheet, stop: AbortSignal): Promise<void> {
  const sink = sheetSink(sheet);
  const state = (sink as unknown as { _writableState?: { needDrain?: boolean } } | undefined)?._writableState;
  if (sink && state?.needDrain) await once(sink, 'drain', { signal: stop }).catch(() => undefined);
}

/** Every matching order as an Excel workbook, streamed by exceljs's WorkbookWriter, one row per order. */
export class XlsxEncoder implements ExportEncoder {
  readonly contentType = XLSX_MEDIA_TYPE;
  readonly fileExtension = 'xlsx';
  private readonly cells: ReadonlyArray<{ name: string; cell: XlsxColumn }>;

  constructor(
    fields: readonly ElementField[],
    private readonly rowsPerSheet = SPREADSHEET_MAX_ROWS,
  ) {
    this.cells = fields.map(({ name, kind }) => ({ name, cell: CELLS[kind] }));
  }

  async *encode(batches: AsyncIterable<readonly OrderElement[]>): AsyncGenerator<Buffer> {
    const output = new PassThrough();
    const stop = new AbortController();
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
      stream: output,
      useStyles: true,
      useSharedStrings: false,
    });
    const writing = this.write(workbook, batches, stop.signal).catch((error: unknown) => {
      output.destroy(error as Error);
    });
    try {
      for await (const chunk of output) yield chunk as Buffer;
    } finally {
      // A reader that stopped early (a client gone) stops the writer at its next batch, and so the reads.
      stop.abort();
      await writing;
    }
  }

  private async write(
    workbook: ExcelJS.stream.xlsx.WorkbookWriter,
    batches: AsyncIterable<readonly OrderElement[]>,
    stop: AbortSignal,
  ): Promise<void> {
    let sheet = this.addSheet(workbook, 1);
    let sheets = 1;
    let rows = 1;
    for await (const batch of batches) {
      for (const element of batch) {
        if (rows === this.rowsPerSheet) {
          this.commitSheet(sheet, rows);
          sheets += 1;
          sheet = this.addSheet(workbook, sheets);
          rows = 1;
        }
        const order = element as unknown as Record<string, never>;
        sheet.addRow(this.cells.map(({ name, cell }) => cell.value(order[name]))).commit();
        rows += 1;
      }
      await drained(sheet, stop);
      if (stop.aborted) return;
    }
    this.commitSheet(sheet, rows);
    await workbook.commit();
  }

  private addSheet(workbook: ExcelJS.stream.xlsx.WorkbookWriter, index: number): Worksheet {
    const sheet = workbook.addWorksheet(index === 1 ? 'orders' : `orders ${index}`, {
      views: [{ state: 'frozen', ySplit: 1 }],
    });
    sheet.columns = this.cells.map(({ name, cell }) => ({
      header: name,
      key: name,
      width: cell.width,
      style: cell.numFmt ? { numFmt: cell.numFmt } : {},
    }));
    return sheet;
  }

  /** The filter covers the sheet's rows, so that a spreadsheet filters them all, not only the first block. */
  private commitSheet(sheet: Worksheet, rows: number): void {
    sheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: rows, column: this.cells.length } };
    sheet.commit();
  }
}
