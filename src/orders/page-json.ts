import fastJson, { type ObjectSchema } from 'fast-json-stringify';
import type { AdminOrderDto, UserOrderDto } from './dto/order.dto';
import type { Page } from './paging/page';

/** Serializes a page to the bytes `JSON.stringify` would write, compiled once from its schema. */
export type PageJson<Element> = (page: Page<Element>) => string;

const SEAT: ObjectSchema = {
  type: 'object',
  properties: { seatPriceId: { type: 'integer' }, price: { type: 'number' } },
};

/** A schema's properties are written in its order: docs/API.md §4's, as `toUserOrder` and `toAdminOrder` build them. */
const elementProperties = (withUserId: boolean): ObjectSchema['properties'] => ({
  orderId: { type: 'integer' },
  ...(withUserId ? { userId: { type: 'integer' } } : {}),
  concertId: { type: 'integer' },
  seats: { type: 'array', items: SEAT },
  totalPrice: { type: 'number' },
  status: { type: 'string' },
  createdAt: { type: 'string' },
  updatedAt: { type: 'string' },
});

const pageSchema = (withUserId: boolean): ObjectSchema => ({
  type: 'object',
  properties: {
    totalPages: { type: 'integer' },
    totalElementCount: { type: 'integer' },
    currentPage: { type: 'integer' },
    currentElementCount: { type: 'integer' },
    perPageNumber: { type: 'integer' },
    firstPage: { type: 'boolean' },
    lastPage: { type: 'boolean' },
    hasNextPage: { type: 'boolean' },
    hasPrevious: { type: 'boolean' },
    elements: { type: 'array', items: { type: 'object', properties: elementProperties(withUserId) } },
  },
});

export const userPageJson: PageJson<UserOrderDto> = fastJson(pageSchema(false));
export const adminPageJson: PageJson<AdminOrderDto> = fastJson(pageSchema(true));
