import { describe, expect, it } from '@jest/globals';
import { LocalTimeFormatter } from '../common/time/local-time';
import { apiPropertiesOf, elementFields } from './dto/element-fields';
import { AdminOrderDto, UserOrderDto, type ElementDto } from './dto/order.dto';
import { OrdersPageDto } from './dto/orders-page.dto';
import { elementsOf, toAdminOrder } from './order-element';
import type { OrderRow } from './model';
import { elementJsonOf, pageJsonOf } from './page-json';

const time = new LocalTimeFormatter('Asia/Seoul');
const row = (id: number, status: string): OrderRow => ({
  id,
  userId: 42,
  concertId: 7,
  totalPrice: id % 2 === 0 ? 120.5 : 110000,
  status,
  createdAt: '2026-03-01 10:30:05',
  updatedAt: '2026-03-01 10:31:40',
});
const seats = [
  { orderId: 1001, seatPriceId: 1201, price: 55000 },
  { orderId: 1001, seatPriceId: 1202, price: 60.25 },
];
// Unknown stored codes are shown as they are (docs/API.md §4): quotes, escapes, non-ASCII and a lone surrogate.
const STATUSES = ['PAYMENT_COMPLETED', 'REFUNDED', 'we"ird\\code', 'tab\there\u0001', '환불', 'lone\ud800'];
const rows = STATUSES.map((status, index) => row(1000 + index, status));

describe('page JSON', () => {
  it.each([
    ['a member', UserOrderDto],
    ['an administrator', AdminOrderDto],
  ] as Array<[string, ElementDto]>)('writes the same bytes as JSON.stringify for %s', (_, element) => {
    const elements = elementsOf(rows, seats, element, time);
    const pages = [OrdersPageDto.of(elements, 857, 2, 20), OrdersPageDto.of([], 0, 1, 20)];
    for (const page of [...pages, OrdersPageDto.of(elements, 6, 1, 6)]) {
      expect(pageJsonOf(element)(page)).toBe(JSON.stringify(page));
    }
  });

  it('writes the envelope’s keys in OrdersPageDto’s order, and the elements’ in their DTO’s', () => {
    const page = JSON.parse(
      pageJsonOf(AdminOrderDto)(OrdersPageDto.of(elementsOf(rows, seats, AdminOrderDto, time), 9, 1, 20)),
    ) as {
      elements: object[];
    };
    expect(Object.keys(page)).toEqual(apiPropertiesOf(OrdersPageDto).map(({ name }) => name));
    expect(Object.keys(OrdersPageDto.of([], 0, 1, 20))).toEqual(Object.keys(page));
    expect(Object.keys(page.elements[0])).toEqual(elementFields(AdminOrderDto).map(({ name }) => name));
  });

  it('keeps userId out of a member’s elements and second in an administrator’s', () => {
    const element = toAdminOrder(row(1, 'REFUNDED'), [], time);
    const written = (json: string) => (JSON.parse(json) as { elements: object[] }).elements[0];
    expect(Object.keys(written(pageJsonOf(AdminOrderDto)(OrdersPageDto.of([element], 1, 1, 20))))).toEqual(
      Object.keys(element),
    );
    expect(written(pageJsonOf(UserOrderDto)(OrdersPageDto.of([element], 1, 1, 20)))).not.toHaveProperty('userId');
  });

  it('writes an NDJSON element as JSON.stringify would, only the fields asked for, in the DTO’s order', () => {
    const [element] = elementsOf(rows.slice(1), seats, AdminOrderDto, time);
    const all = elementFields(AdminOrderDto);
    expect(elementJsonOf(all)(element)).toBe(JSON.stringify(element));
    const some = all.filter(({ name }) => name === 'status' || name === 'orderId');
    expect(elementJsonOf(some)(element)).toBe(JSON.stringify({ orderId: element.orderId, status: element.status }));
  });
});
