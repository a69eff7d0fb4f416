import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsString, Max, Min } from 'class-validator';
import { ORDER_STATUS_CODES, ORDER_STATUS_LABELS } from '../order-status';
import { DATE_FORMATS_HINT } from '../query/date-bound';
import { ADMIN_SORT_FIELDS, DEFAULT_SORT, USER_SORT_FIELDS } from '../query/sort';
import { IsSortSpecification, Optional, ToInteger, ToList } from './validation';

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;
const MAX_ID = Number.MAX_SAFE_INTEGER;

export const USER_PARAMETERS = ['page', 'size', 'sort'] as const;
/** The filters only an administrator may send (CONTRACT §1); `concertId` is the alias of `consertId`. */
export const ADMIN_FILTERS = ['userId', 'consertId', 'concertId', 'orderStatus', 'startDate', 'endDate'] as const;
/** Parameters that take one value; repeating one is a 400 (CONTRACT §3). */
export const SINGLE_VALUED_PARAMETERS: readonly string[] = ['page', 'size', ...ADMIN_FILTERS];

const STATUS_VALUES = [...Object.values(ORDER_STATUS_LABELS), ...ORDER_STATUS_CODES];
const SORT_SYNTAX = 'field, field,asc or field,desc; repeatable';

const positiveId = { message: `$property must be a positive integer no larger than ${MAX_ID}` };

/** `page` and `size`, the same in both variants. */
abstract class PageQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, default: 1, description: 'Page number; the first page is 1.' })
  @Optional()
  @ToInteger()
  @IsInt({ message: '$property must be an integer of at least 1' })
  @Min(1, { message: '$property must be an integer of at least 1' })
  @Max(MAX_ID, { message: `$property must be at most ${MAX_ID}` })
  page?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })
  @Optional()
  @ToInteger()
  @IsInt({ message: `$property must be an integer from 1 to ${MAX_PAGE_SIZE}` })
  @Min(1, { message: `$property must be an integer from 1 to ${MAX_PAGE_SIZE}` })
  @Max(MAX_PAGE_SIZE, { message: `$property must be an integer from 1 to ${MAX_PAGE_SIZE}` })
  size?: number;
}

export class UserOrdersQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    type: [String],
    default: [DEFAULT_SORT],
    description: `${SORT_SYNTAX}. Fields: ${USER_SORT_FIELDS.join(', ')}. orderId (desc) is always the last key.`,
    example: ['totalPrice,desc'],
  })
  @Optional()
  @ToList()
  @IsSortSpecification(USER_SORT_FIELDS)
  sort?: string[];
}

export class AdminOrdersQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    type: [String],
    default: [DEFAULT_SORT],
    description: `${SORT_SYNTAX}. Fields: ${ADMIN_SORT_FIELDS.join(', ')}. orderId (desc) is always the last key.`,
    example: ['userId,asc'],
  })
  @Optional()
  @ToList()
  @IsSortSpecification(ADMIN_SORT_FIELDS)
  sort?: string[];

  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'Member id (admin only).' })
  @Optional()
  @ToInteger()
  @IsInt(positiveId)
  @Min(1, positiveId)
  @Max(MAX_ID, positiveId)
  userId?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    description: 'Concert id (admin only; spelled as in the specification).',
  })
  @Optional()
  @ToInteger()
  @IsInt(positiveId)
  @Min(1, positiveId)
  @Max(MAX_ID, positiveId)
  consertId?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'Alias of consertId (admin only).' })
  @Optional()
  @ToInteger()
  @IsInt(positiveId)
  @Min(1, positiveId)
  @Max(MAX_ID, positiveId)
  concertId?: number;

  @ApiPropertyOptional({ enum: STATUS_VALUES, description: 'Status label or code (admin only).' })
  @Optional()
  @IsIn(STATUS_VALUES, { message: `$property must be one of ${STATUS_VALUES.join(', ')}` })
  orderStatus?: string;

  @ApiPropertyOptional({ description: `Inclusive lower bound on createdAt (admin only): ${DATE_FORMATS_HINT}.` })
  @Optional()
  @IsString({ message: `$property must be a string: ${DATE_FORMATS_HINT}` })
  startDate?: string;

  @ApiPropertyOptional({
    description: `Inclusive upper bound on createdAt (admin only): ${DATE_FORMATS_HINT}. A bare date includes the whole day.`,
  })
  @Optional()
  @IsString({ message: `$property must be a string: ${DATE_FORMATS_HINT}` })
  endDate?: string;
}
