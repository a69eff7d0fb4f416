import { LocalTimeFormatter, storedDateTimeToEpochMs } from '../common/time/local-time';
import type { AdminOrderDto, SeatDto, UserOrderDto } from './dto/order.dto';
import { orderStatusLabel } from './order-status';
import type { OrderRow } from './model';

/** The elements of a page as shows them: plain object literals (no class instance, cheaper per element) typed as
 * the prescribed DTOs, with the contract's key order. */
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

/** An administrator's element: `userId` second, as orders the keys. */
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
