import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiHeader, ApiOperation, ApiQuery, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { DATA_STALENESS_HEADER } from '../common/data-staleness';
import { READ_AFTER_GTID_HEADER } from '../common/read-after-gtid';
import { ApiProblemResponses, REQUEST_ID_HEADER_DOC } from '../common/problem/api-problem-responses.decorator';
import {
  DATE_FORMATS_HINT,
  DEFAULT_PAGE_SIZE,
  MAX_CONTINUATION_LENGTH,
  MAX_ID,
  MAX_PAGE_SIZE,
  STATUS_VALUES,
} from './dto/orders-query.dto';
import { OrdersPageDto } from './dto/orders-page.dto';
import { BOM_QUERY, FIELDS_QUERY, REASON_QUERY } from './export/export-queries';
import { EXPORT_MEDIA_TYPES } from './export/export-format';
import { ORDER_STATUS_CODES, ORDER_STATUS_LABELS } from './order-status';
import { DEFAULT_SORT } from './query/sort';
import { ADMIN_SORT_FIELDS, type ExportFormat } from './model';

const ADMIN_ONLY = '**Admin only**: a USER token sending it gets 403.';
// Admin-only parameters carry their examples in the text, not as `example`: Swagger UI would fill them in on "Try it
// out", and a USER token would then get 403 for a request the developer never wrote.
const SORT_PATTERN = `^(${ADMIN_SORT_FIELDS.join('|')})(,([aA][sS][cC]|[dD][eE][sS][cC]))?$`;
const STATUS_TABLE = ORDER_STATUS_CODES.map((code) => `\`${code}\` = ${ORDER_STATUS_LABELS[code]}`).join(', ');
// A space before the offset is a `+` that arrived unencoded, which the service reads as `+`.
const DATE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+ -]\\d{2}:\\d{2})?)?$';
const ID = { type: 'integer', minimum: 1, maximum: MAX_ID } as const;
const VALIDATOR_HEADERS_DOC = {
  ETag: { description: 'Strong entity tag of the page’s body (RFC 9110).', schema: { type: 'string' } },
  'Cache-Control': { description: '`private, no-cache`: keep the page, but ask again.', schema: { type: 'string' } },
};
/** `Data-Staleness`, on pages and exports alike. */
const STALENESS_HEADER_DOC = {
  [DATA_STALENESS_HEADER]: {
    description:
      'Only when the answer was read from a read replica not shown to hold every write the primary had committed when the request came: at most how many seconds behind the primary its data is (RFC 9651 Integer, rounded up, at least 1). An answer without it reflects every write committed before its request.',
    required: false,
    schema: { type: 'integer', minimum: 1, example: 7 },
  },
};
/** A writer's position, for pages and exports alike. */
const READ_AFTER_GTID_DOC = ApiHeader({
  name: READ_AFTER_GTID_HEADER,
  required: false,
  description:
    'The GTID of a write the client was told of (`0-1-4711`, or a GTID set `uuid:1-23`): the answer reflects at least that write, read from a replica that has applied it without waiting for the primary’s newest position. Not a position, another kind of server’s, or ahead of the primary: 400.',
  schema: { type: 'string', example: '0-1-4711' },
});
const CSV_EXAMPLE = [
  'orderId,userId,concertId,seats,totalPrice,status,createdAt,updatedAt',
  '1042,42,7,1201:55000;1202:55000,110000,결제 완료,2026-03-01T19:30:05,2026-03-01T19:31:40',
  '',
].join('\r\n');
const NDJSON_EXAMPLE = [
  '{"orderId":1042,"userId":42,"concertId":7,"seats":[{"seatPriceId":1201,"price":55000},{"seatPriceId":1202,"price":55000}],"totalPrice":110000,"status":"결제 완료","createdAt":"2026-03-01T19:30:05","updatedAt":"2026-03-01T19:31:40"}',
  '{"complete":true,"count":1}',
  '',
].join('\n');

const VARIANTS = [
  'Two variants, chosen by the role in the bearer token (never by a parameter):',
  '',
  '- **USER** (a role of {userRoles}): the caller’s own orders (the member id in {memberIdClaim}); elements without `userId`; no filters.',
  '- **ADMIN** (a role of {adminRoles}): every order; elements with `userId`; may also filter by `userId`, `consertId` (alias `concertId`), `orderStatus`, `startDate` and `endDate`.',
  '',
  'Parameters go in the query string; a JSON body with the same names is accepted too, and the query string wins. Unknown parameters are 400, a repeated single-valued parameter is 400. Checks run in the order 401, 403, 400.',
];

/** The sort and the filters: what a page and an export share. */
const SORT_QUERY = ApiQuery({
  name: 'sort',
  required: false,
  description: `\`field\`, \`field,asc\` or \`field,desc\` (direction case-insensitive, asc by default); repeat for several keys. \`userId\` is ADMIN only. \`status\` sorts by its code. Unless \`orderId\` is given, it is appended as the last key, in the direction of the key before it: a sort and its reverse list the same orders in exactly opposite order.`,
  style: 'form',
  explode: true,
  schema: {
    type: 'array',
    items: { type: 'string', pattern: SORT_PATTERN },
    default: [DEFAULT_SORT],
    example: [DEFAULT_SORT],
  },
});
const FILTER_QUERIES = [
  ApiQuery({ name: 'userId', required: false, description: `Member id, e.g. 42. ${ADMIN_ONLY}`, schema: ID }),
  ApiQuery({
    name: 'consertId',
    required: false,
    description: `Concert id, e.g. 7 (spelled as in the specification). ${ADMIN_ONLY}`,
    schema: ID,
  }),
  ApiQuery({
    name: 'concertId',
    required: false,
    description: `Alias of consertId; if both are given they must be equal. ${ADMIN_ONLY}`,
    schema: ID,
  }),
  ApiQuery({
    name: 'orderStatus',
    required: false,
    description: `Status label or code: ${STATUS_TABLE}. ${ADMIN_ONLY}`,
    schema: { type: 'string', enum: STATUS_VALUES },
  }),
  ApiQuery({
    name: 'startDate',
    required: false,
    description: `Inclusive lower bound on createdAt: ${DATE_FORMATS_HINT}; e.g. 2026-03-01. ${ADMIN_ONLY}`,
    schema: { type: 'string', pattern: DATE_PATTERN },
  }),
  ApiQuery({
    name: 'endDate',
    required: false,
    description: `Inclusive upper bound on createdAt, same formats: a bare date includes the whole day, a date-time without fraction the whole second; e.g. 2026-03-31. Must not be before startDate. ${ADMIN_ONLY}`,
    schema: { type: 'string', pattern: DATE_PATTERN },
  }),
];

/** What every listing operation can be refused with. */
const LISTING_PROBLEMS = [
  400,
  401,
  403,
  'unsupportedMediaType',
  'writeLost',
  'queryTooBroad',
  'replicasBehind',
  'databaseUnavailable',
  'databaseTimeout',
  'serviceBusy',
  'identityProviderUnavailable',
  'accessRecordUnavailable',
] as const;

/** The OpenAPI description of GET /orders: parameters, both variants of the page, every error. */
export function ApiListOrders(): MethodDecorator {
  return applyDecorators(
    ApiOperation({
      operationId: 'listOrders',
      summary: 'List orders, a page at a time',
      description: [
        ...VARIANTS,
        '',
        'The `Link` header (RFC 8288) gives `first`, `prev`, `next` and `last` pages with all of the request’s parameters; `next` and `prev` also carry a continuation (`after`, `before`) that makes following them stable while orders are placed, and as cheap deep in the list as near its start.',
        '',
        'Every page carries a strong `ETag`; send it back in `If-None-Match` to poll, and an unchanged page answers `304` with no body.',
        '',
        'Pages are JSON only. Every matching order at once, as CSV or NDJSON: `GET /orders/export.csv` and `GET /orders/export.ndjson`.',
      ].join('\n'),
    }),
    ApiQuery({
      name: 'page',
      required: false,
      description: 'Page number; the first page is 1. A page past the last one answers an empty page.',
      schema: { type: 'integer', minimum: 1, maximum: MAX_ID, default: 1, example: 1 },
    }),
    ApiQuery({
      name: 'size',
      required: false,
      description: `Orders per page, 1 to ${MAX_PAGE_SIZE} (never clamped).`,
      schema: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_PAGE_SIZE,
        default: DEFAULT_PAGE_SIZE,
        example: DEFAULT_PAGE_SIZE,
      },
    }),
    SORT_QUERY,
    ApiQuery({
      name: 'after',
      required: false,
      description:
        'Continuation written by the service into the `next` link: the page then starts after the previous page’s last order, by its sort key, and orders placed since the walk began stay out. Opaque; sent with any other parameter changed it is 400.',
      schema: { type: 'string', maxLength: MAX_CONTINUATION_LENGTH },
    }),
    ApiQuery({
      name: 'before',
      required: false,
      description: 'As `after`, written into the `prev` link: the page ends before the next page’s first order.',
      schema: { type: 'string', maxLength: MAX_CONTINUATION_LENGTH },
    }),
    ...FILTER_QUERIES,
    ApiHeader({
      name: 'If-None-Match',
      required: false,
      description: 'The `ETag` of a page already held: `304` with no body if the page is still the same.',
      schema: { type: 'string' },
    }),
    READ_AFTER_GTID_DOC,
    ApiExtraModels(OrdersPageDto),
    ApiResponse({
      status: 200,
      description: 'A page of orders: elements are UserOrderDto for a USER token and AdminOrderDto for an ADMIN token.',
      headers: {
        Link: {
          description:
            'RFC 8288 links: `</orders?page=2&size=20&sort=createdAt,desc>; rel="next"`, with first, prev, next and last where they exist.',
          schema: { type: 'string' },
        },
        ...VALIDATOR_HEADERS_DOC,
        Vary: {
          description: 'Names `Accept`: an `Accept` that admits only CSV or NDJSON is answered 406.',
          schema: { type: 'string' },
        },
        ...STALENESS_HEADER_DOC,
        ...REQUEST_ID_HEADER_DOC,
      },
      content: { 'application/json': { schema: { $ref: getSchemaPath(OrdersPageDto) } } },
    }),
    ApiResponse({
      status: 304,
      description: 'The page is the one whose `ETag` was sent in `If-None-Match`; no body.',
      headers: { ...VALIDATOR_HEADERS_DOC, ...REQUEST_ID_HEADER_DOC },
    }),
    ApiProblemResponses(...LISTING_PROBLEMS, 'pageOutOfReach', 'exportOnlyAccepted', 'rateLimited'),
  );
}

const EXPORTS = {
  csv: {
    operationId: 'exportOrdersCsv',
    summary: 'Export every matching order as CSV',
    format:
      "RFC 4180, a header line of the element’s field names, seats as `seatPriceId:price` joined by `;`. A text starting with `=`, `+`, `-` or `@` is written with a leading `'`, so that a spreadsheet shows it rather than running it. With `bom=true` the file starts with a UTF-8 byte-order mark, so that Excel opens it as UTF-8.",
    example: CSV_EXAMPLE,
    schema: { type: 'string' },
  },
  ndjson: {
    operationId: 'exportOrdersNdjson',
    summary: 'Export every matching order as NDJSON',
    format: 'One element per line, as on a page, then `{"complete":true,"count":N}`.',
    example: NDJSON_EXAMPLE,
    schema: { type: 'string' },
  },
  xlsx: {
    operationId: 'exportOrdersXlsx',
    summary: 'Export every matching order as an Excel workbook (XLSX)',
    format:
      'A sheet `orders` with a frozen, filtered header row of the element’s field names and one row per order: ids, prices and `totalPrice` as numbers, `createdAt` and `updatedAt` as date-times in APP_TIMEZONE, the status as its label, seats as `seatPriceId:price` joined by `;`. Past 1,048,575 orders a sheet, the export goes on in `orders 2`, `orders 3`, and so on.',
    example: undefined,
    schema: { type: 'string', format: 'binary' },
  },
} as const satisfies Record<
  ExportFormat,
  { operationId: string; summary: string; format: string; example?: string; schema: Record<string, string> }
>;

/** The OpenAPI description of an export: the page's filters and sort, no paging, its one media type. */
export function ApiExportOrders(format: ExportFormat): MethodDecorator {
  const { operationId, summary, format: written, example, schema } = EXPORTS[format];
  return applyDecorators(
    ApiOperation({
      operationId,
      summary,
      description: [
        ...VARIANTS,
        '',
        'Every order the filters match, in the sort’s order, streamed as it is read: the same variants, filters, sort and validation as `GET /orders`, without its paging (`page`, `size`, `after` or `before`: 400). One export at a time per caller (EXPORTS_PER_CALLER; beyond: 429).',
        '',
        written,
        '',
        'An export that fails after its first byte is cut off without its end: treat a transfer that did not end cleanly (and, for NDJSON, one without its last line) as failed.',
      ].join('\n'),
    }),
    SORT_QUERY,
    ...FILTER_QUERIES,
    REASON_QUERY,
    FIELDS_QUERY,
    ...(format === 'csv' ? [BOM_QUERY] : []),
    READ_AFTER_GTID_DOC,
    ApiResponse({
      status: 200,
      description: `Every matching order, ${summary.split(' as ')[1]}.`,
      headers: {
        'Content-Disposition': {
          description: 'An attachment: `orders.csv`, `orders.ndjson` or `orders.xlsx`.',
          schema: { type: 'string' },
        },
        'Cache-Control': { description: '`private, no-store`.', schema: { type: 'string' } },
        ...STALENESS_HEADER_DOC,
        ...REQUEST_ID_HEADER_DOC,
      },
      content: { [EXPORT_MEDIA_TYPES[format]]: example === undefined ? { schema } : { schema, example } },
    }),
    ApiProblemResponses(...LISTING_PROBLEMS, 'rateLimited', 'exportsRunning'),
  );
}
