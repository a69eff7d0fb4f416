import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, SelectQueryBuilder, type QueryRunner } from 'typeorm';
import { toStoredDateTime } from '../common/time/local-time';
import { ObservedStatements } from '../observability/observed-statements';
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

const DAY_MS = 86_400_000;
/** Orders per UTC day and status, kept by triggers (migration AddDailyOrderCounts). */
const DAILY_COUNTS_TABLE = 'order_daily_counts';
const toDay = (epochMs: number): string => new Date(epochMs).toISOString().slice(0, 10);

/** Sort fields of the API → entity properties; the only way a client's text reaches ORDER BY. */
export const SORT_COLUMNS: Record<SortField, keyof Order> = {
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
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly statements: ObservedStatements,
  ) {}

  /**
   * A deferred join: the page's ids are found first, from the index alone
   * (filter columns, created_at, and the primary key InnoDB appends), and only
   * those rows are read. A plain OFFSET would read every skipped row in full;
   * this keeps deep pages cheap. Still a single statement.
   */
  async findPage(
    filters: OrderFilters,
    sort: SortKey[],
    limit: number,
    offset: number,
    runner: QueryRunner,
  ): Promise<OrderRow[]> {
    const pageIds = this.sorted(this.matching(filters, 'i', runner), 'i', sort)
      .select('i.id', 'id')
      .limit(limit)
      .offset(offset);
    const query = this.dataSource
      .createQueryBuilder(Order, 'o', runner)
      .innerJoin(`(${pageIds.getQuery()})`, 'p', 'p.id = o.id')
      .setParameters(pageIds.getParameters())
      .select('o.id', 'id')
      .addSelect('o.userId', 'userId')
      .addSelect('o.concertId', 'concertId')
      .addSelect('o.totalPrice', 'totalPrice')
      .addSelect('o.status', 'status')
      .addSelect('o.createdAt', 'createdAt')
      .addSelect('o.updatedAt', 'updatedAt');
    return this.statements.run('page', runner, () => this.sorted(query, 'o', sort).getRawMany<OrderRow>());
  }

  /**
   * Exact. Filtered by member or concert, a COUNT(*) over that index range is
   * small. Otherwise it sums the per-day totals the triggers keep (a few
   * thousand rows instead of a million) and counts only the partial first
   * and last days from `orders` — still one statement.
   */
  async count(filters: OrderFilters, runner: QueryRunner): Promise<number> {
    if (filters.userId !== undefined || filters.concertId !== undefined) return this.countRows(filters, runner);
    const { createdFrom: from, createdBefore: before } = filters;
    const firstWholeDay = from === undefined ? undefined : Math.ceil(from / DAY_MS) * DAY_MS;
    const afterWholeDays = before === undefined ? undefined : Math.floor(before / DAY_MS) * DAY_MS;
    if (firstWholeDay !== undefined && afterWholeDays !== undefined && firstWholeDay >= afterWholeDays) {
      return this.countRows(filters, runner);
    }

    const wholeDays = this.dataSource
      .createQueryBuilder(runner)
      .from(DAILY_COUNTS_TABLE, 'd')
      .select('COALESCE(SUM(d.orders), 0)', 'whole');
    if (filters.status !== undefined) wholeDays.andWhere('d.status = :status', { status: filters.status });
    if (firstWholeDay !== undefined)
      wholeDays.andWhere('d.day >= :firstWholeDay', { firstWholeDay: toDay(firstWholeDay) });
    if (afterWholeDays !== undefined)
      wholeDays.andWhere('d.day < :afterWholeDays', { afterWholeDays: toDay(afterWholeDays) });
    const edge = (name: string, edgeFrom: number | undefined, edgeBefore: number | undefined) => {
      if (edgeFrom === undefined || edgeBefore === undefined || edgeFrom >= edgeBefore) return;
      const rows = this.matching(
        { status: filters.status, createdFrom: edgeFrom, createdBefore: edgeBefore },
        name,
        runner,
      ).select('COUNT(*)');
      wholeDays.addSelect(`(${rows.getQuery()})`, name).setParameters(rows.getParameters());
    };
    edge('firstDay', from, firstWholeDay);
    edge('lastDay', afterWholeDays, before);
    const row = await this.statements.run('count', runner, () =>
      wholeDays.getRawOne<Record<string, number | string | null>>(),
    );
    return Object.values(row ?? {}).reduce<number>((total, value) => total + Number(value ?? 0), 0);
  }

  private async countRows(filters: OrderFilters, runner: QueryRunner): Promise<number> {
    const row = await this.statements.run('count', runner, () =>
      this.matching(filters, 'o', runner).select('COUNT(*)', 'total').getRawOne<{ total: number | string }>(),
    );
    return Number(row?.total ?? 0);
  }

  async findSeats(orderIds: number[], runner: QueryRunner): Promise<SeatRow[]> {
    if (orderIds.length === 0) return [];
    const query = this.dataSource
      .createQueryBuilder(OrderSeat, 's', runner)
      .select('s.orderId', 'orderId')
      .addSelect('s.seatPriceId', 'seatPriceId')
      .addSelect('s.price', 'price')
      .where('s.orderId IN (:...orderIds)', { orderIds })
      .orderBy('s.orderId', 'ASC')
      .addOrderBy('s.seatPriceId', 'ASC');
    return this.statements.run('seats', runner, () => query.getRawMany<SeatRow>());
  }

  private sorted(query: SelectQueryBuilder<Order>, alias: string, sort: SortKey[]): SelectQueryBuilder<Order> {
    for (const { field, direction } of sort) {
      query.addOrderBy(`${alias}.${SORT_COLUMNS[field]}`, direction);
    }
    return query;
  }

  /** Parameters are named after the alias, so that several of these can share one statement. */
  private matching(filters: OrderFilters, alias: string, runner: QueryRunner): SelectQueryBuilder<Order> {
    const query = this.dataSource.createQueryBuilder(Order, alias, runner);
    const condition = (property: keyof Order, operator: string, name: string, value: unknown) =>
      query.andWhere(`${alias}.${property} ${operator} :${name}_${alias}`, { [`${name}_${alias}`]: value });
    if (filters.userId !== undefined) condition('userId', '=', 'userId', filters.userId);
    if (filters.concertId !== undefined) condition('concertId', '=', 'concertId', filters.concertId);
    if (filters.status !== undefined) condition('status', '=', 'status', filters.status);
    if (filters.createdFrom !== undefined)
      condition('createdAt', '>=', 'createdFrom', toStoredDateTime(filters.createdFrom));
    if (filters.createdBefore !== undefined)
      condition('createdAt', '<', 'createdBefore', toStoredDateTime(filters.createdBefore));
    return query;
  }
}
