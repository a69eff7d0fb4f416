import type { FastifyRequest } from 'fastify';
import type { AdminOrderDto, OrderElement } from './dto/order.dto';
import type { ExportFormat } from './model';
import type { ListOrdersQuery } from './query/list-orders-query';

/** docs/API.md §21: what an access record keeps of a validated request: its filters, sort, page or continuation,
 * and an export's format, fields and reason; never a token. */
export function noteAccess(request: FastifyRequest, query: ListOrdersQuery, format?: ExportFormat): void {
  const { filters, sort, page, size, cursor, fields, reason } = query;
  const { userId, concertId, status, createdFrom, createdBefore } = filters;
  // By the API's names; the dates as the instants they were resolved to in APP_TIMEZONE.
  request.accessParameters = {
    ...(userId !== undefined && { userId }),
    ...(concertId !== undefined && { consertId: concertId }),
    ...(status !== undefined && { orderStatus: status }),
    ...(createdFrom !== undefined && { createdFrom: new Date(createdFrom).toISOString() }),
    ...(createdBefore !== undefined && { createdBefore: new Date(createdBefore).toISOString() }),
    sort: sort.map(({ field, direction }) => `${field},${direction.toLowerCase()}`).join(';'),
    ...(format ? { format } : cursor ? { continued: cursor.direction } : { page, size }),
    ...(fields && { fields }),
    ...(reason !== undefined && { reason }),
  };
}

/** A page's orders and the distinct members they belong to. */
export function noteHandedOver(request: FastifyRequest, elements: readonly OrderElement[]): void {
  const members = new Set((elements as readonly AdminOrderDto[]).map(({ userId }) => userId));
  request.handedOver = { orders: elements.length, members: [...members].sort((a, b) => a - b) };
}
