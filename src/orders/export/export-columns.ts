import { elementFields, type ElementField, type FieldKind } from '../dto/element-fields';
import { AdminOrderDto, UserOrderDto, type OrderElement, type SeatDto } from '../dto/order.dto';
import type { BatchBytes } from './batch-bytes';

const COMMA = 0x2c;
const SEMICOLON = 0x3b;
const COLON = 0x3a;
const CR = 0x0d;
const LF = 0x0a;

/** `seatPriceId:price` per seat, joined by `;`. */
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

/** One text cell by RFC 4180: quoted when it holds a comma, a quote or a line break, quotes doubled. */
export function textCell(text: string): string {
  const shown = FORMULA_START.test(text) ? `'${text}` : text;
  return NEEDS_QUOTES.test(shown) ? `"${shown.replaceAll('"', '""')}"` : shown;
}

/** Each kind of field as a cell. Numbers are written as they are, a negative one included; a local time is digits and separators, nothing a cell would quote or a spreadsheet run. */
const CELLS: { readonly [Kind in FieldKind]: (bytes: BatchBytes, value: never) => void } = {
  integer: (bytes, value: number) => bytes.number(value),
  number: (bytes, value: number) => bytes.number(value),
  text: (bytes, value: string) => bytes.text(textCell(value)),
  localDateTime: (bytes, value: string) => bytes.text(value),
  seats: writeSeats,
};

/** A variant's fields, its CSV header's columns, and how one element is written as a CSV record. */
export interface ExportColumns<Element extends OrderElement> {
  readonly fields: readonly ElementField[];
  readonly columns: readonly string[];
  write(bytes: BatchBytes, element: Element): void;
}

/** Fields in their order, as a header and as one CRLF-ended record per element. */
function columnsOf<Element extends OrderElement>(
  fields: ReadonlyArray<ElementField & { name: keyof Element & string }>,
): ExportColumns<Element> {
  const cells = fields.map(({ name, kind }) => ({
    name,
    write: CELLS[kind] as (bytes: BatchBytes, value: unknown) => void,
  }));
  return {
    fields,
    columns: fields.map(({ name }) => name),
    write(bytes, element) {
      for (let index = 0; index < cells.length; index += 1) {
        if (index > 0) bytes.byte(COMMA);
        cells[index].write(bytes, element[cells[index].name]);
      }
      bytes.byte(CR);
      bytes.byte(LF);
    },
  };
}

/** A member's export has no `userId`. */
export const USER_COLUMNS = columnsOf<UserOrderDto>(elementFields(UserOrderDto));
export const ADMIN_COLUMNS = columnsOf<AdminOrderDto>(elementFields(AdminOrderDto));

/** The same columns, but only the fields named (`fields`), in the element's order. */
export function onlyFields<Element extends OrderElement>(
  csv: ExportColumns<Element>,
  names: readonly string[] | undefined,
): ExportColumns<Element> {
  // The fields of the same DTO, some left out: each still names a key of its elements.
  type Field = ElementField & { name: keyof Element & string };
  return names ? columnsOf((csv.fields as readonly Field[]).filter(({ name }) => names.includes(name))) : csv;
}
