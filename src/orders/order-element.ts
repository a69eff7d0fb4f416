import { LocalTimeFormatter, storedDateTimeToEpochMs } from '../common/time/local-time';
import type { AdminOrderDto, SeatDto, UserOrderDto } from './dto/order.dto';
import { orderStatusLabel } from './order-status';
import type { OrderRow } from './orders.repository';

/**
 * An element of the page as CONTRACT §4 shows it: a plain object literal (no
 * class instance, cheaper per element) with the contract's key order,
 * `userId` second and only for administrators.
 */
export function toOrderElement(
  row: OrderRow,
  seats: SeatDto[],
  isAdmin: boolean,
  time: LocalTimeFormatter,
): UserOrderDto | AdminOrderDto {
  return {
    orderId: row.id,
    ...(isAdmin ? { userId: row.userId } : {}),
    concertId: row.concertId,
    seats,
    totalPrice: row.totalPrice,
    status: orderStatusLabel(row.status),
    createdAt: time.format(storedDateTimeToEpochMs(row.createdAt)),
    updatedAt: time.format(storedDateTimeToEpochMs(row.updatedAt)),
  };
}
