import { describe, expect, it } from '@jest/globals';
import { Role } from '../auth/role';
import { LocalTimeFormatter } from '../common/time/local-time';
import { AdminOrderDto, UserOrderDto } from './dto/order.dto';
import { listingVariantOf, scopedFilters } from './listing-variant';
import { elementsOf } from './order-element';
import type { OrderRow } from './model';

const row: OrderRow = {
  id: 5,
  userId: 42,
  concertId: 3,
  totalPrice: 120.5,
  status: 'PAYMENT_COMPLETED',
  createdAt: '2026-03-09 15:00:00.000',
  updatedAt: '2026-03-09 15:30:00.000',
};
const time = new LocalTimeFormatter('UTC');
const member = (id: number) => listingVariantOf({ id, role: Role.User });
const administrator = listingVariantOf({ id: 1, role: Role.Admin });

describe('listingVariantOf', () => {
  it('scopes a member to their own orders, whatever filters are given', () => {
    expect(scopedFilters(member(7), { userId: 8, status: 'REFUNDED', createdFrom: 0 })).toEqual({ userId: 7 });
  });

  it('reads an administrator’s filters as they are', () => {
    const filters = { userId: 8, status: 'REFUNDED' as const, createdFrom: 0 };
    expect(scopedFilters(administrator, filters)).toEqual(filters);
  });

  it('refuses an administrator’s filters and sort field to a member, and takes them from an administrator', () => {
    expect(member(7).readsFilters).toBe(false);
    expect(member(7).parameters.has('orderStatus')).toBe(false);
    expect(member(7).sortFields).not.toContain('userId');
    expect(administrator.readsFilters).toBe(true);
    expect(administrator.parameters.has('orderStatus')).toBe(true);
    expect(administrator.sortFields).toContain('userId');
  });

  it('binds a walk to one member, and to the administrators’ view', () => {
    expect(new Set([member(7).walkOwner, member(8).walkOwner, administrator.walkOwner]).size).toBe(3);
  });

  it('writes a member’s elements and export columns without userId, and an administrator’s with it second', () => {
    expect(member(7).element).toBe(UserOrderDto);
    expect(administrator.element).toBe(AdminOrderDto);
    expect(Object.keys(elementsOf([row], [], member(7).element, time)[0])).not.toContain('userId');
    expect(Object.keys(elementsOf([row], [], administrator.element, time)[0])[1]).toBe('userId');
    expect(member(7).columns.columns).not.toContain('userId');
    expect(administrator.columns.columns[1]).toBe('userId');
  });
});
