import { IsIn, IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { ORDER_STATUS_CODES, ORDER_STATUS_LABELS } from '../order-status';
import { Optional, ToInteger, ToList } from './validation';

/** The forms a date parameter takes (`query/date-bound.ts` reads them). */
export const DATE_FORMATS_HINT =
  'YYYY-MM-DD, YYYY-MM-DDThh:mm:ss (local time) or an ISO 8601 date-time with Z or an offset such as +09:00';

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_ID = Number.MAX_SAFE_INTEGER;

/** Continuations of a walk: only the service writes them, into the `Link` header. */
export const CONTINUATION_PARAMETERS = ['after', 'before'] as const;
export const USER_PARAMETERS = ['page', 'size', 'sort', ...CONTINUATION_PARAMETERS] as const;
/** The filters only an administrator may send; `concertId` is the alias of `consertId`. */
export const ADMIN_FILTERS = ['userId', 'consertId', 'concertId', 'orderStatus', 'startDate', 'endDate'] as const;
/** Parameters that take one value; repeating one is a 400. */
export const SINGLE_VALUED_PARAMETERS: readonly string[] = [
  'page',
  'size',
  ...CONTINUATION_PARAMETERS,
  ...ADMIN_FILTERS,
];
/** Far above any token the service writes (a bound and eight keys), far below what would cost to read. */
export const MAX_CONTINUATION_LENGTH = 512;
const continuation = { message: '$property must be the continuation of a Link header, as the service wrote it' };

export const STATUS_VALUES = [...Object.values(ORDER_STATUS_LABELS), ...ORDER_STATUS_CODES];

const positiveId = { message: `$property must be a positive integer no larger than ${MAX_ID}` };

/** `page`, `size` and `sort`, the same in both variants; the sort terms are parsed against the variant's fields later. */
export class UserOrdersQueryDto {
  @Optional()
  @ToInteger()
  @IsInt({ message: '$property must be an integer of at least 1' })
  @Min(1, { message: '$property must be an integer of at least 1' })
  @Max(MAX_ID, { message: `$property must be at most ${MAX_ID}` })
  page?: number;

  @Optional()
  @ToInteger()
  @IsInt({ message: `$property must be an integer from 1 to ${MAX_PAGE_SIZE}` })
  @Min(1, { message: `$property must be an integer from 1 to ${MAX_PAGE_SIZE}` })
  @Max(MAX_PAGE_SIZE, { message: `$property must be an integer from 1 to ${MAX_PAGE_SIZE}` })
  size?: number;

  @Optional()
  @ToList()
  @IsString({ each: true, message: '$property must be a string or an array of strings' })
  sort?: string[];

  @Optional()
  @IsString(continuation)
  @MaxLength(MAX_CONTINUATION_LENGTH, continuation)
  after?: string;

  @Optional()
  @IsString(continuation)
  @MaxLength(MAX_CONTINUATION_LENGTH, continuation)
  before?: string;
}

export class AdminOrdersQueryDto extends UserOrdersQueryDto {
  @Optional()
  @ToInteger()
  @IsInt(positiveId)
  @Min(1, positiveId)
  @Max(MAX_ID, positiveId)
  userId?: number;

  @Optional()
  @ToInteger()
  @IsInt(positiveId)
  @Min(1, positiveId)
  @Max(MAX_ID, positiveId)
  consertId?: number;

  @Optional()
  @ToInteger()
  @IsInt(positiveId)
  @Min(1, positiveId)
  @Max(MAX_ID, positiveId)
  concertId?: number;

  @Optional()
  @IsIn(STATUS_VALUES, { message: `$property must be one of ${STATUS_VALUES.join(', ')}` })
  orderStatus?: string;

  @Optional()
  @IsString({ message: `$property must be a string: ${DATE_FORMATS_HINT}` })
  startDate?: string;

  @Optional()
  @IsString({ message: `$property must be a string: ${DATE_FORMATS_HINT}` })
  endDate?: string;
}
