import { ApiQuery } from '@nestjs/swagger';
import { ADMIN_COLUMNS } from './export-columns';

/** The CSV export's own parameter. */
export const BOM_QUERY = ApiQuery({
  name: 'bom',
  required: false,
  description:
    '`true`: the file starts with a UTF-8 byte-order mark, so that Excel (which otherwise reads a CSV in the desktop’s code page) shows the status labels as written. For programs, leave it out.',
  schema: { type: 'boolean', default: false },
});

/** Every export's own parameters: why, and which fields (docs/API.md §13). */
export const REASON_QUERY = ApiQuery({
  name: 'reason',
  required: false,
  description:
    'Why these orders are downloaded, 10 to 500 characters once trimmed, no control characters (line breaks, tabs). Required of an administrator (400 naming `reason` without it); a member exporting their own orders need not give one.',
  schema: { type: 'string', minLength: 10, maxLength: 500 },
  example: 'Monthly settlement with the concert organiser, March 2026',
});
export const FIELDS_QUERY = ApiQuery({
  name: 'fields',
  required: false,
  description:
    'Only these fields of each order, comma-separated, in the element’s order whatever order they are named in; every field when absent. The element’s field names (a member’s have no `userId`); an unknown or repeated one is 400 naming `fields`.',
  schema: { type: 'array', items: { type: 'string', enum: [...ADMIN_COLUMNS.columns] } },
  style: 'form',
  explode: false,
  example: ['orderId', 'totalPrice', 'status'],
});
