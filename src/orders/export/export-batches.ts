import { Injectable } from '@nestjs/common';
import { LocalTimeFormatter } from '../../common/time/local-time';
import type { PinnedReads } from '../../database/read-router';
import type { OrderElement } from '../dto/order.dto';
import type { KeysetCursor, OrderRow } from '../model';
import { elementsOf } from '../order-element';
import { OrdersRepository, type ExportBatchRead } from '../orders.repository';
import type { MatchSizes } from '../query-plan';
import type { ListOrdersQuery } from '../query/list-orders-query';
import { refusalOf } from '../read-refusals';
import type { SeatRow } from '../statements/seat-statement';
import { sortValuesOf } from '../statements/statement-parts';

/** Orders an export reads at a time: round trips stay a small share, a batch a few hundred kilobytes. */
export const EXPORT_BATCH_SIZE = 1000;

/** A batch's reads under way: its orders, then their seats as soon as the orders are in. */
interface BatchReads {
  page: Promise<ExportBatchRead & { cursor?: KeysetCursor }>;
  seats: Promise<SeatRow[]>;
}

/** Told once the first batch is read: how far behind its server may be, and how to read the server's position. */
export type PinnedServer = (behindSeconds: number | undefined, position: () => Promise<string | undefined>) => void;

/** docs/API.md §13: every order an export matches, in its sort order, a batch at a time from one server, each batch
 * read ahead of the consumer; a failure of that server before the first batch starts it over once on another. */
@Injectable()
export class ExportBatches {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly time: LocalTimeFormatter,
  ) {}

  async *read(query: ListOrdersQuery, cancelled: AbortSignal, pinned?: PinnedServer): AsyncGenerator<OrderElement[]> {
    const { filters, sort, writerPosition } = query;
    let reads: PinnedReads;
    try {
      reads = this.orders.exportReads(filters, sort, writerPosition);
    } catch (error) {
      throw refusalOf(error, query);
    }
    // Counted for the first batch where the counts decide the plan, and kept: every batch is one walk's.
    let sizes: MatchSizes | undefined;
    const readBatch = (cursor: KeysetCursor | undefined): BatchReads => {
      const request = { filters, sort, limit: EXPORT_BATCH_SIZE, offset: 0, cursor };
      const page = this.orders.readBatch(reads, request, sizes, cancelled).then((read) => {
        sizes = read.sizes;
        return { ...read, cursor };
      });
      const seats = page.then(({ rows }) => this.orders.readSeats(reads, idsOf(rows), cancelled));
      // Awaited in turn, or in `finally` below: a failure meanwhile is never an unhandled one.
      seats.catch(() => undefined);
      return { page, seats };
    };

    let next: BatchReads | undefined = readBatch(undefined);
    // Nothing is sent before the first batch is read: if its server fails, the export starts over once on another.
    await Promise.all([next.page, next.seats]).catch(async (error: unknown) => {
      if (!reads.moveAfter(error)) return;
      await Promise.allSettled([next!.page, next!.seats]);
      sizes = undefined;
      next = readBatch(undefined);
    });
    try {
      while (next) {
        const batch: BatchReads = next;
        const { rows, more, cursor, walkBound, behindSeconds } = await batch.page.catch((error: unknown) => {
          throw refusalOf(error, query);
        });
        // Known once the first batch is read: whether the export's server had what it must reflect.
        if (!cursor) pinned?.(behindSeconds, () => reads.position());
        const last = rows.at(-1);
        next =
          more && last && walkBound !== undefined
            ? readBatch({ direction: 'after', key: sortValuesOf(last, sort), bound: walkBound })
            : undefined;
        yield elementsOf(rows, await batch.seats, query.variant.element, this.time);
      }
    } finally {
      // A batch read ahead is left unread when the consumer stops; the export ends once its connections are back.
      if (next) await Promise.allSettled([next.page, next.seats]);
    }
  }
}

const idsOf = (rows: readonly OrderRow[]): number[] => rows.map((row) => row.id);
