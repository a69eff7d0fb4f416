import { LocalTimeFormatter, storedDateTimeToEpochMs } from '../common/time/local-time';
import type { AdminOrderDto, SeatDto, UserOrderDto } from './dto/order.dto';
import { orderStatusLabel } from './order-status';
import type { OrderRow } from './model';

/** A page's elements as the contract shows them: plain objects (cheaper than class instances) typed as the DTOs,
 * in the contract's key order. */
export function toUserOrder(row: OrderRow, seats: SeatDto[], time: LocalTimeFormatter): UserOrderDto {
  return {
    orderId: row.id,
    concertId: row.concertId,
    seats,
    totalPrice: row.totalPrice,
    status: orderStatusLabel(row.status),
    createdAt: time.format(storedDateTimeToEpochMs(row.createdAt)),
    updatedAt: time.format(storedDateTimeToEpochMs(row.updatedAt)),
  };
}

/** An administrator's element: `userId` second, as the contract orders the keys. */
export function toAdminOrder(row: OrderRow, seats: SeatDto[], time: LocalTimeFormatter): AdminOrderDto {
  return {
    orderId: row.id,
    userId: row.userId,
    concertId: row.concertId,
    seats,
    totalPrice: row.totalPrice,
    status: orderStatusLabel(row.status),
    createdAt: time.format(storedDateTimeToEpochMs(row.createdAt)),
    updatedAt: time.format(storedDateTimeToEpochMs(row.updatedAt)),
  };
}
