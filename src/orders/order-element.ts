import { LocalTimeFormatter, storedDateTimeToEpochMs } from '../common/time/local-time';
import { AdminOrderDto, type ElementDto, type OrderElement, type SeatDto, type UserOrderDto } from './dto/order.dto';
import { orderStatusLabel } from './order-status';
import type { OrderRow } from './model';
import type { SeatRow } from './statements/seat-statement';

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

function groupSeats(seats: readonly SeatRow[]): Map<number, SeatDto[]> {
  const byOrder = new Map<number, SeatDto[]>();
  for (const { orderId, seatPriceId, price } of seats) {
    const list = byOrder.get(orderId) ?? [];
    list.push({ seatPriceId, price });
    byOrder.set(orderId, list);
  }
  return byOrder;
}

/** A page's or an export batch's elements as `element` shows them, each order with its seats. */
export function elementsOf(
  rows: readonly OrderRow[],
  seats: readonly SeatRow[],
  element: ElementDto,
  time: LocalTimeFormatter,
): OrderElement[] {
  const seatsByOrder = groupSeats(seats);
  const toElement = element === AdminOrderDto ? toAdminOrder : toUserOrder;
  return rows.map((row) => toElement(row, seatsByOrder.get(row.id) ?? [], time));
}
