import { describe, expect, it } from '@jest/globals';
import { parseSort } from './sort';
import { ADMIN_SORT_FIELDS, USER_SORT_FIELDS } from '../model';

describe('parseSort', () => {
  it('defaults to createdAt descending, then orderId descending', () => {
    expect(parseSort([], USER_SORT_FIELDS)).toEqual({
      ok: true,
      keys: [
        { field: 'createdAt', direction: 'DESC' },
        { field: 'orderId', direction: 'DESC' },
      ],
      tieBreakAppended: true,
    });
  });

  it('reads field, field,asc and field,desc with the direction in any case, asc by default', () => {
    expect(parseSort(['totalPrice', 'status,DESC', 'updatedAt,Asc'], USER_SORT_FIELDS)).toEqual({
      ok: true,
      keys: [
        { field: 'totalPrice', direction: 'ASC' },
        { field: 'status', direction: 'DESC' },
        { field: 'updatedAt', direction: 'ASC' },
        // In the direction of the key before it: a sort and its reverse are exact reverses.
        { field: 'orderId', direction: 'ASC' },
      ],
      tieBreakAppended: true,
    });
    expect(parseSort(['totalPrice,desc', 'status'], USER_SORT_FIELDS)).toMatchObject({
      keys: [{ direction: 'DESC' }, { direction: 'ASC' }, { field: 'orderId', direction: 'ASC' }],
    });
  });

  it('does not append orderId when the client sorts by it', () => {
    expect(parseSort(['orderId,asc'], USER_SORT_FIELDS)).toEqual({
      ok: true,
      keys: [{ field: 'orderId', direction: 'ASC' }],
      tieBreakAppended: false,
    });
  });

  it('allows userId to administrators only', () => {
    expect(parseSort(['userId'], ADMIN_SORT_FIELDS).ok).toBe(true);
    expect(parseSort(['userId'], USER_SORT_FIELDS)).toEqual({
      ok: false,
      message: expect.stringContaining('"userId"'),
    });
  });

  it.each([
    ['', 'not a sortable field'],
    ['price', 'not a sortable field'],
    ['seats.price', 'not a sortable field'],
    ['id;DROP TABLE orders', 'not a sortable field'],
    ['createdAt,up', 'not a direction'],
    ['createdAt,', 'not a direction'],
    ['createdAt,desc,SLEEP(5)', 'not of the form'],
  ])('rejects %j', (term, message) => {
    expect(parseSort([term], ADMIN_SORT_FIELDS)).toEqual({ ok: false, message: expect.stringContaining(message) });
  });

  it('rejects a field given twice', () => {
    expect(parseSort(['status', 'status,desc'], USER_SORT_FIELDS)).toEqual({
      ok: false,
      message: expect.stringContaining('more than once'),
    });
  });
});
