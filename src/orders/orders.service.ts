import { Injectable } from '@nestjs/common';
import { Role, type Caller } from '../auth/role';
import { LocalTimeFormatter } from '../common/time/local-time';
import { ReadRouter, type ReadSession } from '../database/read-router';
import type { AdminOrderDto, SeatDto, UserOrderDto } from './dto/order.dto';
import { toAdminOrder, toUserOrder } from './order-element';
import { OrdersRepository, type OrderRow, type SeatRow } from './orders.repository';
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
    private readonly reads: ReadRouter,
  ) {}

  /**
   * A member sees only their own orders, whatever the query says; an
   * administrator sees all that match. The page, the count and the seats are
   * read on one connection of one server (CONTRACT §11), one after the other.
   */
  async list(caller: Caller, query: ListOrdersQuery): Promise<OrdersPage> {
    const isAdmin = caller.role === Role.Admin;
    const filters: OrderFilters = isAdmin ? query.filters : { userId: caller.id };
    const offset = (query.page - 1) * query.size;

    const { rows, total, seats } = await this.reads.withConnection(async (session) => {
      // Where the best plan depends on how many orders match, the count comes first and is the page's total.
      const sizes = this.orders.planDependsOnSizes(filters, query.sort)
        ? await this.orders.sizes(filters, session)
        : undefined;
      const rows = await this.orders.findPage(filters, query.sort, query.size, offset, session, sizes);
      const total = sizes?.matching ?? (await this.countMatching(filters, rows.length, offset, query.size, session));
      const seats = await this.orders.findSeats(
        rows.map((row) => row.id),
        session,
      );
      return { rows, total, seats };
    });

    const seatsByOrder = groupSeats(seats);
    const seatsOf = (row: OrderRow) => seatsByOrder.get(row.id) ?? [];
    return isAdmin
      ? buildPage(
          rows.map((row) => toAdminOrder(row, seatsOf(row), this.time)),
          total,
          query.page,
          query.size,
        )
      : buildPage(
          rows.map((row) => toUserOrder(row, seatsOf(row), this.time)),
          total,
          query.page,
          query.size,
        );
  }

  /**
   * A page that is neither empty nor full is the last one, so it already tells
   * the total; only otherwise is COUNT(*) worth its cost.
   */
  private countMatching(
    filters: OrderFilters,
    rowCount: number,
    offset: number,
    size: number,
    session: ReadSession,
  ): Promise<number> {
    if (rowCount > 0 && rowCount < size) return Promise.resolve(offset + rowCount);
    if (rowCount === 0 && offset === 0) return Promise.resolve(0);
    return this.orders.count(filters, session);
  }
}
