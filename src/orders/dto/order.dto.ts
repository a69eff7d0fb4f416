import { ClosedSchema } from '../../common/openapi/closed-schema';
import { ApiProperty } from '@nestjs/swagger';
import { ORDER_STATUS_LABELS } from '../order-status';

const LOCAL_DATE_TIME = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$';

@ClosedSchema()
export class SeatDto {
  @ApiProperty({ type: 'integer', example: 1201 })
  seatPriceId: number;

  @ApiProperty({ example: 55000, description: 'Price of the seat, the stored value exactly.' })
  price: number;
}

/** An order as a member sees it: never with `userId`. */
// Elements of the two variants differ only by userId; closed schemas are what make `oneOf` pick exactly one.
@ClosedSchema()
export class UserOrderDto {
  @ApiProperty({ type: 'integer', example: 1042 })
  orderId: number;

  @ApiProperty({ type: 'integer', example: 7 })
  concertId: number;

  @ApiProperty({ type: [SeatDto], description: 'Ascending by seatPriceId; empty for an order without seats.' })
  seats: SeatDto[];

  @ApiProperty({ example: 110000, description: 'The stored value exactly, cents included (e.g. 120.5).' })
  totalPrice: number;

  // Not an enum alone: docs/API.md §4 shows a code another service stored as that code, and clients generated with
  // enums would refuse such a page. The labels stay listed as the first alternative.
  @ApiProperty({
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
    example: '2026-03-01T19:30:05',
    pattern: LOCAL_DATE_TIME,
    description: 'Local time in APP_TIMEZONE (Asia/Seoul by default), to the second, without offset.',
  })
  createdAt: string;

  @ApiProperty({ example: '2026-03-01T19:31:40', pattern: LOCAL_DATE_TIME, description: 'Same format as createdAt.' })
  updatedAt: string;
}

/**
 * An order as an administrator sees it: with the `userId` of the member who
 * holds it. The mapper, not this class, fixes the key order of docs/API.md §4.
 */
@ClosedSchema()
export class AdminOrderDto extends UserOrderDto {
  @ApiProperty({ type: 'integer', example: 42 })
  userId: number;
}

/** An element of either variant, as pages and exports write it. */
export type OrderElement = UserOrderDto | AdminOrderDto;
