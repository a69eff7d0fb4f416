import { ForbiddenException, Inject, Injectable, PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { InvalidParametersException } from '../../common/problem/invalid-parameters.exception';
import type { FieldError } from '../../common/problem/problem-details';
import type { AppConfig } from '../../config/app.config';
import { APP_CONFIG } from '../../config/config.module';
import {
  ADMIN_FILTERS,
  AdminOrdersQueryDto,
  CONTINUATION_PARAMETERS,
  DEFAULT_PAGE_SIZE,
  SINGLE_VALUED_PARAMETERS,
  UserOrdersQueryDto,
} from '../dto/orders-query.dto';
import type { ListingVariant } from '../listing-variant';
import { toOrderStatusCode } from '../order-status';
import { ContinuationTokens } from '../paging/continuation';
import { boundsRows, parseEndBound, parseStartBound, startsAfterEnd } from './date-bound';
import type { ListOrdersQuery } from './list-orders-query';
import { mergeRequestParameters, parameterNames, toQueryValues, type RequestParameters } from './request-parameters';
import { DEFAULT_SORT, parseSort } from './sort';
import type { ExportFormat, OrderFilters, Seek, SortKey } from '../model';

/** What the listing handler receives: whom the listing is for, and the raw parameters from both transports. */
export interface ListOrdersRequest {
  variant: ListingVariant;
  query: unknown;
  body: unknown;
  /** Why the JSON body could not be read, if it could not; raised after the 403 checks. */
  bodyError?: Error;
  /** The export the route answers; none for a page. */
  exportFormat?: ExportFormat;
}

/** An export answers every matching order (docs/API.md §13): paging parameters have nothing to say to it. */
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

/**
 * Turns a listing request into a {@link ListOrdersQuery}, in the order docs/API.md §3
 * prescribes: admin-only filters from a user are a 403 before anything else is
 * looked at; then every remaining problem is collected into one 400.
 */
@Injectable()
export class ListOrdersQueryPipe implements PipeTransform<ListOrdersRequest, ListOrdersQuery> {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly continuations: ContinuationTokens,
  ) {}

  transform({ variant, query, body, bodyError, exportFormat }: ListOrdersRequest): ListOrdersQuery {
    if (!variant.readsFilters) {
      // Whatever else is wrong with the request, including the shape of its body: 403 comes before 400.
      const names = parameterNames(query, bodyError ? undefined : body);
      const adminFilters = ADMIN_FILTERS.filter((name) => names.has(name));
      if (adminFilters.length > 0) {
        throw new ForbiddenException(`Only administrators may filter by ${adminFilters.join(', ')}`);
      }
    }
    if (bodyError) throw bodyError;
    const { values, repeated } = mergeRequestParameters(query, body);

    const errors: FieldError[] = [];
    const known: Record<string, unknown> = {};
    for (const [name, value] of values) {
      if (!variant.parameters.has(name)) {
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
    const filters = dto instanceof AdminOrdersQueryDto ? this.adminFilters(dto, errors) : {};
    if (errors.length > 0 || !sort?.ok) {
      throw new InvalidParametersException(errors);
    }

    const page = dto.page ?? 1;
    const size = dto.size ?? DEFAULT_PAGE_SIZE;
    let scope: string | undefined;
    const walkScope = () => (scope ??= scopeOf(variant.walkOwner, filters, sort.keys, size));
    const seek = this.seekOf(dto, page, walkScope, sort.keys);
    return {
      page,
      size,
      sort: sort.keys,
      filters: variant.scope(filters),
      variant,
      seek,
      walkScope,
      echoedParameters: echo(values, size),
    };
  }

  /** The continuation sent, checked against the rest of the request; a 400 naming it when the service did not write it for this one. */
  private seekOf(dto: UserOrdersQueryDto, page: number, scope: () => string, sort: SortKey[]): Seek | undefined {
    if (dto.after !== undefined && dto.before !== undefined) {
      throw new InvalidParametersException([
        { field: 'before', message: 'after and before continue a walk in opposite directions; send one of them' },
      ]);
    }
    const direction = dto.after !== undefined ? 'after' : dto.before !== undefined ? 'before' : undefined;
    if (direction === undefined) return undefined;
    const seek = this.continuations.read(dto[direction] ?? '', direction, page, scope(), sort);
    if (!seek) {
      throw new InvalidParametersException([
        {
          field: direction,
          message: `${direction} was not written by this service for this request: follow the Link header's targets as they are, changing none of their parameters`,
        },
      ]);
    }
    return seek;
  }

  /** Builds the filters, adding to `errors` what only shows once values are combined or read in the service's zone. */
  private adminFilters(dto: AdminOrdersQueryDto, errors: FieldError[]): OrderFilters {
    const invalid = new Set(errors.map((error) => error.field));
    const valid = <K extends keyof AdminOrdersQueryDto>(name: K): AdminOrdersQueryDto[K] | undefined =>
      invalid.has(name) ? undefined : dto[name];
    const filters: OrderFilters = {};

    filters.userId = valid('userId');
    const [consertId, concertId] = [valid('consertId'), valid('concertId')];
    if (consertId !== undefined && concertId !== undefined && consertId !== concertId) {
      errors.push({
        field: 'concertId',
        message: 'concertId is an alias of consertId; when both are given they must be equal',
      });
    }
    filters.concertId = consertId ?? concertId;
    const status = valid('orderStatus');
    filters.status = status === undefined ? undefined : toOrderStatusCode(status);

    const timeZone = this.config.timeZone;
    const startText = valid('startDate');
    const endText = valid('endDate');
    const start = startText === undefined ? undefined : parseStartBound(startText, timeZone);
    const end = endText === undefined ? undefined : parseEndBound(endText, timeZone);
    if (start && !start.ok) errors.push({ field: 'startDate', message: `startDate ${start.message}` });
    if (end && !end.ok) errors.push({ field: 'endDate', message: `endDate ${end.message}` });
    if (start?.ok && end?.ok && startsAfterEnd(start, end)) {
      errors.push({ field: 'startDate', message: 'startDate must not be later than endDate' });
    }
    filters.createdFrom = start?.ok ? boundsRows.from(start.epochMs) : undefined;
    filters.createdBefore = end?.ok ? boundsRows.before(end.epochMs) : undefined;

    return Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined));
  }
}

/**
 * What a walk is: who may follow it (a member's own orders, or an administrator's view), the filters, the sort and
 * the size. A continuation written for one scope is refused in any other.
 */
function scopeOf(walkOwner: string, filters: OrderFilters, sort: SortKey[], size: number): string {
  const { userId, concertId, status, createdFrom, createdBefore } = filters;
  return JSON.stringify([walkOwner, userId, concertId, status, createdFrom, createdBefore, sort, size]);
}

const NOT_ECHOED: ReadonlySet<string> = new Set(['page', 'size', 'sort', ...CONTINUATION_PARAMETERS]);

/** Every parameter of the request but `page` and the continuations, written as a query string would carry it, with the size and sort in effect. */
function echo(parameters: RequestParameters['values'], size: number): Array<[string, string]> {
  const echoed: Array<[string, string]> = [['size', String(size)]];
  const sort = parameters.has('sort') ? toQueryValues(parameters.get('sort')) : [DEFAULT_SORT];
  echoed.push(...sort.map((term): [string, string] => ['sort', term]));
  for (const [name, value] of parameters) {
    if (!NOT_ECHOED.has(name)) {
      echoed.push(...toQueryValues(value).map((text): [string, string] => [name, text]));
    }
  }
  return echoed;
}
