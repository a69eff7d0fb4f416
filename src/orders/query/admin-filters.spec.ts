import { describe, expect, it } from '@jest/globals';
import { ForbiddenException } from '@nestjs/common';
import type { FieldError } from '../../common/problem/problem-details';
import { AdminOrdersQueryDto } from '../dto/orders-query.dto';
import { adminFiltersOf, refuseFiltersOfMember } from './admin-filters';

describe('refuseFiltersOfMember', () => {
  it('answers 403 naming every admin filter a member sent, whatever else is wrong with the request', () => {
    expect(() =>
      refuseFiltersOfMember(false, { page: '0', concertId: '1', startDate: 'x', junk: '1' }, undefined),
    ).toThrow(new ForbiddenException('Only administrators may filter by concertId, startDate'));
  });

  it('names a filter sent in the JSON body too', () => {
    expect(() => refuseFiltersOfMember(false, {}, { orderStatus: 'REFUNDED' })).toThrow(
      new ForbiddenException('Only administrators may filter by orderStatus'),
    );
  });

  it.each([[[]], ['text'], [42]])('answers 403 to a member’s filter whatever the body %j looks like', (body) => {
    expect(() => refuseFiltersOfMember(false, { userId: '2' }, body)).toThrow(
      new ForbiddenException('Only administrators may filter by userId'),
    );
  });

  it('lets a member’s paging and sort through, and an administrator’s filters', () => {
    expect(() => refuseFiltersOfMember(false, { page: '2', size: '5', sort: 'totalPrice' }, undefined)).not.toThrow();
    expect(() => refuseFiltersOfMember(true, { userId: '2', orderStatus: 'REFUNDED' }, undefined)).not.toThrow();
  });
});

describe('adminFiltersOf', () => {
  const dto = (values: Partial<AdminOrdersQueryDto>) => Object.assign(new AdminOrdersQueryDto(), values);

  it('leaves out a filter whose value failed validation, so that its one message stands', () => {
    const errors: FieldError[] = [{ field: 'userId', message: 'userId must be a positive integer' }];
    expect(adminFiltersOf(dto({ userId: -1, consertId: 3 }), 'UTC', errors)).toEqual({ concertId: 3 });
    expect(errors).toHaveLength(1);
  });

  it('reads a day in the service’s zone, the end day whole', () => {
    expect(adminFiltersOf(dto({ startDate: '2026-03-10', endDate: '2026-03-10' }), 'Asia/Seoul', [])).toEqual({
      createdFrom: Date.parse('2026-03-09T15:00:00Z'),
      createdBefore: Date.parse('2026-03-10T15:00:00Z'),
    });
  });
});
