import { Injectable } from '@nestjs/common';
import { LocalTimeFormatter } from '../common/time/local-time';
import { OrdersPageDto } from './dto/orders-page.dto';
import type { OrderElement } from './dto/order.dto';
import { elementsOf } from './order-element';
import { OrdersRepository, type PageRead } from './orders.repository';
import { refusalOf } from './read-refusals';
import { sortValuesOf } from './statements/statement-parts';
import type { ListOrdersQuery } from './query/list-orders-query';
import type { KeysetCursor, CursorDirection } from './model';
import type { WalkProgress } from './paging/link-header';

export interface ListedPage {
  page: OrdersPageDto<OrderElement>;
  /** Where `next` continues (after the last element) and `prev` (before the first); none on an empty page. */
  continuation?: Record<CursorDirection, KeysetCursor>;
  /** On a followed page: whether its walk has orders past it, in the direction it was followed. */
  walk?: WalkProgress;
  /** Read from a replica behind past DB_REPLICA_MAX_LAG_S, at most this many seconds behind. */
  behindSeconds?: number;
}

/** The listing's product logic: the page the caller's variant sees, and where its links continue. */
@Injectable()
export class OrdersService {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly time: LocalTimeFormatter,
  ) {}

  /** A page of the orders the query's variant may see (its filters, scoped). */
  async list(query: ListOrdersQuery): Promise<ListedPage> {
    const { filters, sort, size, cursor, writerPosition, variant } = query;
    let read: PageRead;
    try {
      read = await this.orders.readPage({
        filters,
        sort,
        size,
        offset: (query.page - 1) * size,
        cursor,
        writerPosition,
      });
    } catch (error) {
      throw refusalOf(error, query);
    }
    const { rows, seats, total, more, walkBound, behindSeconds } = read;
    const page = OrdersPageDto.of(elementsOf(rows, seats, variant.element, this.time), total, query.page, size);
    const [first, last] = [rows.at(0), rows.at(-1)];
    return {
      page,
      continuation:
        first && last && walkBound !== undefined
          ? {
              after: { direction: 'after', key: sortValuesOf(last, sort), bound: walkBound },
              before: { direction: 'before', key: sortValuesOf(first, sort), bound: walkBound },
            }
          : undefined,
      walk: cursor && { direction: cursor.direction, more },
      behindSeconds,
    };
  }
}
