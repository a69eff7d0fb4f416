import { Inject, Injectable, PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { InvalidParametersException } from '../../common/problem/invalid-parameters.exception';
import { READ_AFTER_GTID_HEADER } from '../../common/read-after-gtid';
import { MARIADB_GTID_DIALECT, MYSQL_GTID_DIALECT } from '../../database/gtid';
import type { FieldError } from '../../common/problem/problem-details';
import type { AppConfig } from '../../config/app.config';
import { APP_CONFIG } from '../../config/config.module';
import {
  AdminOrdersQueryDto,
  CONTINUATION_PARAMETERS,
  DEFAULT_PAGE_SIZE,
  SINGLE_VALUED_PARAMETERS,
} from '../dto/orders-query.dto';
import { scopedFilters, type ListingVariant } from '../listing-variant';
import type { ExportFormat } from '../model';
import { ContinuationTokens } from '../paging/continuation';
import { adminFiltersOf } from './admin-filters';
import { FIELDS, fieldsOf, REASON, reasonOf } from './export-parameters';
import type { ListOrdersQuery } from './list-orders-query';
import { mergeRequestParameters } from './request-parameters';
import { parseSort } from './sort';
import { echoedParametersOf, cursorOf, walkScopeOf } from './walk-parameters';

/** What the listing handler receives: whom the listing is for, and the raw parameters from both transports. */
export interface ListOrdersRequest {
  variant: ListingVariant;
  query: unknown;
  body: unknown;
  /** Why the JSON body could not be read, if it could not; raised after the edge's 403. */
  bodyError?: Error;
  /** The export the route answers; none for a page. */
  exportFormat?: ExportFormat;
  /** The `Read-After-Gtid` header as received. */
  readAfterGtid?: string | string[];
}

/** A writer's position as a MariaDB or a MySQL server writes it; which kind the servers are is the router's to check. */
function readAfterGtidOf(header: string | string[] | undefined, errors: FieldError[]): string | undefined {
  if (header === undefined) return undefined;
  const text = Array.isArray(header) ? header.join(',') : header;
  if (text.trim() !== '' && (MARIADB_GTID_DIALECT.parse(text) ?? MYSQL_GTID_DIALECT.parse(text))) return text.trim();
  errors.push({
    field: READ_AFTER_GTID_HEADER,
    message: `${READ_AFTER_GTID_HEADER} must be the GTID position of a commit: domain-server-sequence (0-1-42), or a GTID set (uuid:1-42)`,
  });
  return undefined;
}

/** The CSV export's one parameter of its own: a byte-order mark first, so that Excel reads the file as UTF-8. */
const BYTE_ORDER_MARK = 'bom';

function byteOrderMarkOf(value: unknown, errors: FieldError[]): boolean | undefined {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  errors.push({
    field: BYTE_ORDER_MARK,
    message: Array.isArray(value)
      ? `${BYTE_ORDER_MARK} must be given once`
      : `${BYTE_ORDER_MARK} must be true or false`,
  });
  return undefined;
}

/** An export answers every matching order: paging parameters have nothing to say to it. */
const NOT_IN_EXPORT: ReadonlySet<string> = new Set(['page', 'size', ...CONTINUATION_PARAMETERS]);

/** A wrong type explains itself better than the range a value of the right type would need. */
const CONSTRAINT_PRIORITY = ['isInt', 'isString', 'isIn', 'min', 'max'];
const priorityOf = (constraint: string): number => {
  const index = CONSTRAINT_PRIORITY.indexOf(constraint);
  return index === -1 ? CONSTRAINT_PRIORITY.length : index;
};

/** One message per field, for the most telling of the constraints it failed. */
function fieldErrors(errors: ValidationError[]): FieldError[] {
  return errors.flatMap((error) => {
    const [first] = Object.entries(error.constraints ?? {}).sort(([a], [b]) => priorityOf(a) - priorityOf(b));
    return first ? [{ field: error.property, message: first[1] }] : [];
  });
}

/** Turns a listing request into a {@link ListOrdersQuery} in docs/API.md §3's order: after the edge's 403, every
 * remaining problem is collected into one 400. */
@Injectable()
export class ListOrdersQueryPipe implements PipeTransform<ListOrdersRequest, ListOrdersQuery> {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly continuations: ContinuationTokens,
  ) {}

  transform({ variant, query, body, bodyError, exportFormat, readAfterGtid }: ListOrdersRequest): ListOrdersQuery {
    // The edge has answered 403 to a member's filters already (`refuseFiltersOfMember`): 400s come after it.
    if (bodyError) throw bodyError;
    const { values, repeated } = mergeRequestParameters(query, body);

    const errors: FieldError[] = [];
    const known: Record<string, unknown> = {};
    let byteOrderMark: boolean | undefined;
    let givenReason: unknown;
    let fields: string[] | undefined;
    for (const [name, value] of values) {
      if (name === BYTE_ORDER_MARK && exportFormat === 'csv') {
        byteOrderMark = byteOrderMarkOf(value, errors);
      } else if (name === REASON && exportFormat) {
        givenReason = value;
      } else if (name === FIELDS && exportFormat) {
        fields = fieldsOf(value, variant.columns.columns, errors);
      } else if (!variant.parameters.has(name)) {
        errors.push({ field: name, message: `${name} is not a parameter of this operation` });
      } else if (exportFormat && NOT_IN_EXPORT.has(name)) {
        errors.push({
          field: name,
          message: `${name} is not a parameter of an export, which answers every matching order; leave it out, or list pages with GET /orders`,
        });
      } else if (repeated.has(name) && SINGLE_VALUED_PARAMETERS.includes(name)) {
        errors.push({ field: name, message: `${name} must be given once` });
      } else {
        known[name] = value;
      }
    }
    const dto = plainToInstance(variant.queryDto, known);
    errors.push(...fieldErrors(validateSync(dto)));
    const sort = errors.some((error) => error.field === 'sort')
      ? undefined
      : parseSort(dto.sort ?? [], variant.sortFields);
    if (sort && !sort.ok) errors.push({ field: 'sort', message: sort.message });
    const filters = dto instanceof AdminOrdersQueryDto ? adminFiltersOf(dto, this.config.timeZone, errors) : {};
    const writerPosition = readAfterGtidOf(readAfterGtid, errors);
    const reason = exportFormat ? reasonOf(givenReason, variant.othersOrders, errors) : undefined;
    if (errors.length > 0 || !sort?.ok) {
      throw new InvalidParametersException(errors);
    }

    const page = dto.page ?? 1;
    const size = dto.size ?? DEFAULT_PAGE_SIZE;
    const walkScope = walkScopeOf(variant.walkOwner, filters, sort.keys, size);
    // Before 3.0.0 the tie-break appended was always `orderId desc`; a link of then is told apart from a forged one.
    const tieBreak = sort.keys[sort.keys.length - 1];
    const earlierScope =
      sort.tieBreakAppended && tieBreak.direction === 'ASC'
        ? () =>
            walkScopeOf(
              variant.walkOwner,
              filters,
              [...sort.keys.slice(0, -1), { ...tieBreak, direction: 'DESC' }],
              size,
            )
        : undefined;
    const cursor = cursorOf(this.continuations, dto, page, walkScope, sort.keys, earlierScope);
    return {
      page,
      size,
      sort: sort.keys,
      filters: scopedFilters(variant, filters),
      variant,
      cursor,
      walkScope,
      echoedParameters: echoedParametersOf(values, size),
      writerPosition,
      byteOrderMark,
      reason,
      fields,
    };
  }
}
