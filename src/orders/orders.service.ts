import { Injectable } from '@nestjs/common';
import { Role, type Caller } from '../auth/role';
import { LocalTimeFormatter, storedDateTimeToEpochMs } from '../common/time/local-time';
import type { AdminOrderDto, SeatDto, UserOrderDto } from './dto/order.dto';
import { orderStatusLabel } from './order-status';
import { OrderRow, OrdersRepository, SeatRow } from './orders.repository';
import { buildPage, type Page } from './paging/page';
import type { ListOrdersQuery, OrderFilters } from './query/list-orders-query';

export type OrdersPage = Page<UserOrderDto> | Page<AdminOrderDto>;

function groupSeats(seats: SeatRow[]): Map<number, SeatDto[]> {
  const byOrder = new Map<number, SeatDto[]>();
  for (const { orderId, seatPriceId, price } of seats) {
    const list = byOrder.get(orderId) ?? [];
    list.push({ seatPriceId, price });
    byOrder.set(orderId, list);
  }
  return byOrder;
}

@Injectable()
export class OrdersService {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly time: LocalTimeFormatter,
  ) {}

  /** A member sees only their own orders, whatever the query says; an administrator sees all that match. */
  async list(caller: Caller, query: ListOrdersQuery): Promise<OrdersPage> {
    const isAdmin = caller.role === Role.Admin;
    const filters: OrderFilters = isAdmin ? query.filters : { userId: caller.id };
    const offset = (query.page - 1) * query.size;

    const rows = await this.orders.findPage(filters, query.sort, query.size, offset);
    const [total, seats] = await Promise.all([
      this.countMatching(filters, rows.length, offset, query.size),
      this.orders.findSeats(rows.map((row) => row.id)),
    ]);

    const seatsByOrder = groupSeats(seats);
    const elements = rows.map((row) => this.toElement(row, seatsByOrder.get(row.id) ?? [], isAdmin));
    return buildPage<UserOrderDto | AdminOrderDto>(elements, total, query.page, query.size);
  }

  /**
   * A page that is neither empty nor full is the last one, so it already tells
   * the total; only otherwise is COUNT(*) worth its cost.
   */
  private countMatching(filters: OrderFilters, rowCount: number, offset: number, size: number): Promise<number> {
    if (rowCount > 0 && rowCount < size) return Promise.resolve(offset + rowCount);
    if (rowCount === 0 && offset === 0) return Promise.resolve(0);
    return this.orders.count(filters);
  }

  /**
   * A plain object literal, not a class instance (cheaper per element), with
   * CONTRACT §4's key order: `userId` second, and only for administrators.
   */
  private toElement(row: OrderRow, seats: SeatDto[], isAdmin: boolean): UserOrderDto | AdminOrderDto {
    return {
      orderId: row.id,
      ...(isAdmin ? { userId: row.userId } : {}),
      concertId: row.concertId,
      seats,
      totalPrice: row.totalPrice,
      status: orderStatusLabel(row.status),
      createdAt: this.time.format(storedDateTimeToEpochMs(row.createdAt)),
      updatedAt: this.time.format(storedDateTimeToEpochMs(row.updatedAt)),
    };
  }
}
