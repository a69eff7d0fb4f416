import { ClosedSchema } from '../../common/openapi/closed-schema';
import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { AdminOrderDto, UserOrderDto } from './order.dto';

/** The page envelope of docs/API.md §4, as documented; the service builds it as a plain object. */
@ApiExtraModels(UserOrderDto, AdminOrderDto)
@ClosedSchema()
export class OrdersPageDto {
  @ApiProperty({ type: 'integer', example: 43, description: 'ceil(totalElementCount / size); 0 when nothing matches.' })
  totalPages: number;

  @ApiProperty({
    type: 'integer',
    example: 857,
    description: 'Orders matching the filters (for a USER: their own orders).',
  })
  totalElementCount: number;

  @ApiProperty({
    type: 'integer',
    example: 1,
    description: 'The requested page, also when it lies past the last page.',
  })
  currentPage: number;

  @ApiProperty({ type: 'integer', example: 20, description: 'elements.length' })
  currentElementCount: number;

  @ApiProperty({ type: 'integer', example: 20, description: 'The page size in effect.' })
  perPageNumber: number;

  @ApiProperty({ example: true, description: 'currentPage == 1' })
  firstPage: boolean;

  @ApiProperty({ example: false, description: 'currentPage >= totalPages' })
  lastPage: boolean;

  @ApiProperty({ example: true, description: 'currentPage < totalPages' })
  hasNextPage: boolean;

  @ApiProperty({ example: false, description: 'currentPage > 1 (spelled as in the specification)' })
  hasPrevious: boolean;

  @ApiProperty({
    description:
      'The orders of this page in sort order; UserOrderDto for a USER token, AdminOrderDto (with userId) for an ADMIN token.',
    type: 'array',
    items: { oneOf: [{ $ref: getSchemaPath(UserOrderDto) }, { $ref: getSchemaPath(AdminOrderDto) }] },
  })
  elements: Array<UserOrderDto | AdminOrderDto>;
}
