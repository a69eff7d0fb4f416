import { describe, expect, it } from '@jest/globals';
import { LocalTimeFormatter } from '../common/time/local-time';
import { toAdminOrder, toUserOrder } from './order-element';
import type { OrderRow } from './model';
import { buildPage } from './paging/page';
import { adminPageJson, userPageJson, type PageJson } from './page-json';
import type { AdminOrderDto } from './dto/order.dto';

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
  { seatPriceId: 1201, price: 55000 },
  { seatPriceId: 1202, price: 60.25 },
];
// Unknown stored codes are shown as they are (docs/API.md §4): quotes, escapes, non-ASCII and a lone surrogate.
const STATUSES = ['PAYMENT_COMPLETED', 'REFUNDED', 'we"ird\\code', 'tab\there\u0001', '환불', 'lone\ud800'];

describe('page JSON', () => {
  it.each([
    ['a member', userPageJson, toUserOrder],
    ['an administrator', adminPageJson, toAdminOrder],
  ] as Array<[string, PageJson<AdminOrderDto>, typeof toAdminOrder]>)(
    'writes the same bytes as JSON.stringify for %s',
    (_, pageJson, toElement) => {
      const elements = STATUSES.map((status, index) =>
        toElement(row(1000 + index, status), index % 2 ? seats : [], time),
      );
      for (const page of [buildPage(elements, 857, 2, 20), buildPage([], 0, 1, 20), buildPage(elements, 6, 1, 6)]) {
        expect(pageJson(page)).toBe(JSON.stringify(page));
      }
    },
  );

  it('keeps userId out of a member’s elements and second in an administrator’s', () => {
    const element = toAdminOrder(row(1, 'REFUNDED'), [], time);
    const written = (json: string) => (JSON.parse(json) as { elements: object[] }).elements[0];
    expect(Object.keys(written(adminPageJson(buildPage([element], 1, 1, 20))))).toEqual(Object.keys(element));
    expect(written(userPageJson(buildPage([element], 1, 1, 20)))).not.toHaveProperty('userId');
  });
});
