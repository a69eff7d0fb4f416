import { ClosedSchema } from '../../common/openapi/closed-schema';
import { ApiProperty, OmitType } from '@nestjs/swagger';
import { ORDER_STATUS_LABELS } from '../order-status';

/** A local time as pages and exports write it; a field with this pattern is one. */
export const LOCAL_DATE_TIME_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$';

@ClosedSchema()
export class SeatDto {
  @ApiProperty({ type: 'integer', example: 1201 })
  seatPriceId: number;

  @ApiProperty({ type: 'number', example: 55000, description: 'Price of the seat, the stored value exactly.' })
  price: number;
}

/** An order as an administrator sees it: the serializer, the OpenAPI document and the export's columns read its
 * properties, in this order; closed schemas make `oneOf` pick exactly one of the two variants. */
@ClosedSchema()
export class AdminOrderDto {
  @ApiProperty({ type: 'integer', example: 1042 })
  orderId: number;

  @ApiProperty({ type: 'integer', example: 42, description: 'The member who holds the order.' })
  userId: number;

  @ApiProperty({ type: 'integer', example: 7 })
  concertId: number;

  @ApiProperty({ type: [SeatDto], description: 'Ascending by seatPriceId; empty for an order without seats.' })
  seats: SeatDto[];

  @ApiProperty({
    type: 'number',
    example: 110000,
    description: 'The stored value exactly, cents included (e.g. 120.5).',
  })
  totalPrice: number;

  // Not an enum alone: the contract shows a code another service stored as that code, and clients generated with
  // enums would refuse such a page.
  @ApiProperty({
    type: 'string',
    anyOf: [
      { type: 'string', enum: Object.values(ORDER_STATUS_LABELS), description: 'One of the known labels.' },
      {
        type: 'string',
        maxLength: 32,
        description: 'The stored code of a status another service wrote that this listing does not know, as is.',
      },
    ],
    example: ORDER_STATUS_LABELS.PAYMENT_COMPLETED,
    description: 'The status’s label; a status this listing does not know is shown as its stored code.',
  })
  status: string;

  @ApiProperty({
    type: 'string',
    example: '2026-03-01T19:30:05',
    pattern: LOCAL_DATE_TIME_PATTERN,
    description: 'Local time in APP_TIMEZONE (Asia/Seoul by default), to the second, without offset.',
  })
  createdAt: string;

  @ApiProperty({
    type: 'string',
    example: '2026-03-01T19:31:40',
    pattern: LOCAL_DATE_TIME_PATTERN,
    description: 'Same format as createdAt.',
  })
  updatedAt: string;
}

/** An order as a member sees it: the same fields, never `userId`. */
@ClosedSchema()
export class UserOrderDto extends OmitType(AdminOrderDto, ['userId'] as const) {}

/** An element of either variant, as pages and exports write it. */
export type OrderElement = UserOrderDto | AdminOrderDto;

/** The class of either variant's elements, which a listing variant names. */
export type ElementDto = typeof AdminOrderDto | typeof UserOrderDto;
