import { ClosedSchema } from '../../common/openapi/closed-schema';
import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { AdminOrderDto, UserOrderDto, type OrderElement } from './order.dto';

/** The page envelope of docs/API.md §4: the OpenAPI document, the page's type and its serializer all read it, in this
 * order. `of` builds it as a plain object. */
@ApiExtraModels(UserOrderDto, AdminOrderDto)
@ClosedSchema()
export class OrdersPageDto<Element extends OrderElement = OrderElement> {
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

  @ApiProperty({ type: 'boolean', example: true, description: 'currentPage == 1' })
  firstPage: boolean;

  @ApiProperty({ type: 'boolean', example: false, description: 'currentPage >= totalPages' })
  lastPage: boolean;

  @ApiProperty({ type: 'boolean', example: true, description: 'currentPage < totalPages' })
  hasNextPage: boolean;

  @ApiProperty({ type: 'boolean', example: false, description: 'currentPage > 1 (spelled as in the specification)' })
  hasPrevious: boolean;

  @ApiProperty({
    description:
      'The orders of this page in sort order; UserOrderDto for a USER token, AdminOrderDto (with userId) for an ADMIN token.',
    type: 'array',
    items: { oneOf: [{ $ref: getSchemaPath(UserOrderDto) }, { $ref: getSchemaPath(AdminOrderDto) }] },
  })
  elements: Element[];

  /** The page of `elements` at `currentPage`, `size` to a page, of `totalElementCount` orders. */
  static of<Element extends OrderElement>(
    elements: Element[],
    totalElementCount: number,
    currentPage: number,
    size: number,
  ): OrdersPageDto<Element> {
    const totalPages = Math.ceil(totalElementCount / size);
    return {
      totalPages,
      totalElementCount,
      currentPage,
      currentElementCount: elements.length,
      perPageNumber: size,
      firstPage: currentPage === 1,
      lastPage: currentPage >= totalPages,
      hasNextPage: currentPage < totalPages,
      hasPrevious: currentPage > 1,
      elements,
    };
  }
}
