import { describe, expect, it } from '@jest/globals';
import { LocalTimeFormatter } from '../common/time/local-time';
import { elementFields } from './dto/element-fields';
import { AdminOrderDto, UserOrderDto } from './dto/order.dto';
import { toAdminOrder, toUserOrder } from './order-element';
import type { OrderRow } from './model';

const row: OrderRow = {
  id: 41,
  userId: 7,
  concertId: 3,
  totalPrice: 150.5,
  status: 'PAYMENT_COMPLETED',
  createdAt: '2026-11-23 14:59:59.000',
  updatedAt: '2026-11-23 15:00:00.000',
};
const seats = [{ seatPriceId: 9, price: 150.5 }];
const time = new LocalTimeFormatter('Asia/Seoul');

describe('order elements (docs/API.md §4)', () => {
  it('builds a member’s element without userId, its times in the service’s zone and its status as a label', () => {
    expect(toUserOrder(row, seats, time)).toStrictEqual({
      orderId: 41,
      concertId: 3,
      seats,
      totalPrice: 150.5,
      status: '결제 완료',
      createdAt: '2026-11-23T23:59:59',
      updatedAt: '2026-11-24T00:00:00',
    });
  });

  it('builds an administrator’s element with userId second', () => {
    expect(Object.keys(toAdminOrder(row, seats, time)).slice(0, 3)).toEqual(['orderId', 'userId', 'concertId']);
    expect(toAdminOrder(row, seats, time).userId).toBe(7);
  });

  it('builds each element with its DTO’s fields in the DTO’s order, as the serializer and the export write them', () => {
    const names = (dto: typeof UserOrderDto | typeof AdminOrderDto) => elementFields(dto).map(({ name }) => name);
    expect(Object.keys(toUserOrder(row, seats, time))).toEqual(names(UserOrderDto));
    expect(Object.keys(toAdminOrder(row, seats, time))).toEqual(names(AdminOrderDto));
  });

  it('refuses, at compile time, a member’s element that carries userId', () => {
    const element = toUserOrder(row, seats, time);
    // `npm run typecheck` fails if a UserOrderDto literal may carry userId.
    // @ts-expect-error userId is not a property of UserOrderDto
    const leaked: UserOrderDto = { ...element, userId: 7 };
    expect(leaked).toHaveProperty('userId');
  });
});
