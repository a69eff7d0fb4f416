import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, SelectQueryBuilder } from 'typeorm';
import { toStoredDateTime } from '../common/time/local-time';
import { OrderSeat } from './order-seat.entity';
import { Order } from './order.entity';
import type { OrderFilters } from './query/list-orders-query';
import type { SortField, SortKey } from './query/sort';

/** One row of `orders` as the page query returns it. */
export interface OrderRow {
  id: number;
  userId: number;
  concertId: number;
  totalPrice: number;
  status: string;
  createdAt: Date | string;
  updatedAt: Date | string;
}

export interface SeatRow {
  orderId: number;
  seatPriceId: number;
  price: number;
}

/** Sort fields of the API → entity properties; the only way a client's text reaches ORDER BY. */
const SORT_COLUMNS: Record<SortField, keyof Order> = {
  orderId: 'id',
  userId: 'userId',
  concertId: 'concertId',
  totalPrice: 'totalPrice',
  status: 'status',
  createdAt: 'createdAt',
  updatedAt: 'updatedAt',
};

/**
 * Reads for the listing, each a single statement: a page of `orders` alone
 * (LIMIT/OFFSET over an index in a deferred join, never TypeORM's skip/take
 * over a one-to-many join), a plain COUNT(*), and the page's seats in one `IN (...)`.
 */
@Injectable()
export class OrdersRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * A deferred join: the page's ids are found first, from the index alone
   * (filter columns, created_at, and the primary key InnoDB appends), and only
   * those rows are read. A plain OFFSET would read every skipped row in full;
   * this keeps deep pages cheap. Still a single statement.
   */
  async findPage(filters: OrderFilters, sort: SortKey[], limit: number, offset: number): Promise<OrderRow[]> {
    const pageIds = this.sorted(this.matching(filters, 'i'), 'i', sort)
      .select('i.id', 'id')
      .limit(limit)
      .offset(offset);
    const query = this.dataSource
      .createQueryBuilder(Order, 'o')
      .innerJoin(`(${pageIds.getQuery()})`, 'p', 'p.id = o.id')
      .setParameters(pageIds.getParameters())
      .select('o.id', 'id')
      .addSelect('o.userId', 'userId')
      .addSelect('o.concertId', 'concertId')
      .addSelect('o.totalPrice', 'totalPrice')
      .addSelect('o.status', 'status')
      .addSelect('o.createdAt', 'createdAt')
      .addSelect('o.updatedAt', 'updatedAt');
    return this.sorted(query, 'o', sort).getRawMany<OrderRow>();
  }

  async count(filters: OrderFilters): Promise<number> {
    const row = await this.matching(filters, 'o').select('COUNT(*)', 'total').getRawOne<{ total: number | string }>();
    return Number(row?.total ?? 0);
  }

  async findSeats(orderIds: number[]): Promise<SeatRow[]> {
    if (orderIds.length === 0) return [];
    return this.dataSource
      .createQueryBuilder(OrderSeat, 's')
      .select('s.orderId', 'orderId')
      .addSelect('s.seatPriceId', 'seatPriceId')
      .addSelect('s.price', 'price')
      .where('s.orderId IN (:...orderIds)', { orderIds })
      .orderBy('s.orderId', 'ASC')
      .addOrderBy('s.seatPriceId', 'ASC')
      .getRawMany<SeatRow>();
  }

  private sorted(query: SelectQueryBuilder<Order>, alias: string, sort: SortKey[]): SelectQueryBuilder<Order> {
    for (const { field, direction } of sort) {
      query.addOrderBy(`${alias}.${SORT_COLUMNS[field]}`, direction);
    }
    return query;
  }

  private matching(filters: OrderFilters, alias: string): SelectQueryBuilder<Order> {
    const query = this.dataSource.createQueryBuilder(Order, alias);
    const column = (property: keyof Order) => `${alias}.${property}`;
    if (filters.userId !== undefined) query.andWhere(`${column('userId')} = :userId`, { userId: filters.userId });
    if (filters.concertId !== undefined) {
      query.andWhere(`${column('concertId')} = :concertId`, { concertId: filters.concertId });
    }
    if (filters.status !== undefined) query.andWhere(`${column('status')} = :status`, { status: filters.status });
    if (filters.createdFrom !== undefined) {
      query.andWhere(`${column('createdAt')} >= :createdFrom`, { createdFrom: toStoredDateTime(filters.createdFrom) });
    }
    if (filters.createdBefore !== undefined) {
      query.andWhere(`${column('createdAt')} < :createdBefore`, {
        createdBefore: toStoredDateTime(filters.createdBefore),
      });
    }
    return query;
  }
}
