import { describe, expect, it } from '@jest/globals';
import { getMetadataArgsStorage } from 'typeorm';
import { type OrderColumn } from './index-fit';
import { ADMIN_SORT_FIELDS, type OrderFilters } from './model';
import { Order } from './order.entity';
import { parseSort } from './query/sort';
import { boundedColumnOf } from './range-bounds';
import { QueryPlanner } from './query-plan';
import { REPLICA_INDEXES } from './replica-indexes';

const sortOf = (...terms: string[]) => {
  const parsed = parseSort(terms, ADMIN_SORT_FIELDS);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.keys;
};

describe('boundedColumnOf: which walks start and stop at their days’ bounds (docs/adr/0020, 0015)', () => {
  const year2025 = { createdFrom: Date.UTC(2025, 0, 1), createdBefore: Date.UTC(2026, 0, 1) };

  it('bounds a walk sorted first by id or by concert, and by status where the status is fixed, open ranges too', () => {
    expect(boundedColumnOf(year2025, sortOf('orderId,desc'))).toBe('orderId');
    expect(boundedColumnOf(year2025, sortOf('concertId,desc'))).toBe('concertId');
    expect(boundedColumnOf({ ...year2025, status: 'REFUNDED' }, sortOf('status,asc'))).toBe('orderId');
    expect(boundedColumnOf({ createdBefore: Date.UTC(2025, 3, 1) }, sortOf('concertId,asc'))).toBe('concertId');
    expect(boundedColumnOf({ createdFrom: Date.UTC(2026, 9, 1) }, sortOf('orderId,desc'))).toBe('orderId');
    expect(boundedColumnOf({ status: 'REFUNDED' }, sortOf('concertId,desc'))).toBe('concertId');
  });

  it('bounds a status by creation time to the days it holds orders on, and no date range alone', () => {
    expect(boundedColumnOf({ status: 'REFUNDED' }, sortOf('createdAt,desc'))).toBe('createdAt');
    expect(boundedColumnOf({ ...year2025, status: 'REFUNDED' }, sortOf('createdAt,asc'))).toBe('createdAt');
    expect(boundedColumnOf(year2025, sortOf('createdAt,desc'))).toBeUndefined();
    expect(boundedColumnOf({}, sortOf('createdAt,desc'))).toBeUndefined();
  });

  it('bounds no other sort, and no member’s or concert’s orders', () => {
    expect(boundedColumnOf(year2025, sortOf('status,asc'))).toBeUndefined();
    expect(boundedColumnOf(year2025, sortOf('totalPrice,desc'))).toBeUndefined();
    expect(boundedColumnOf({ status: 'REFUNDED' }, sortOf('updatedAt,desc'))).toBeUndefined();
    expect(boundedColumnOf({ ...year2025, userId: 7 }, sortOf('orderId,desc'))).toBeUndefined();
    expect(boundedColumnOf({ ...year2025, concertId: 7 }, sortOf('concertId,desc'))).toBeUndefined();
    expect(boundedColumnOf({ status: 'REFUNDED', userId: 7 }, sortOf('createdAt,desc'))).toBeUndefined();
  });

  it('names the walks past a sale whose every plan reads the counts first, where the bounds are read', () => {
    // The replica's indexes and the schema's: the server with the most plans that need no counts.
    const schema = getMetadataArgsStorage()
      .indices.filter(({ target }) => target === Order)
      .map(({ name, columns }) => ({ name: name ?? '', columns: columns as OrderColumn[] }));
    const planner = new QueryPlanner([...schema, ...REPLICA_INDEXES]);
    const closedRanges: OrderFilters[] = [
      year2025,
      { ...year2025, status: 'PAYMENT_COMPLETED' },
      { createdBefore: Date.UTC(2025, 3, 1), status: 'PAYMENT_PENDING' },
      { createdFrom: Date.UTC(2025, 5, 2), createdBefore: Date.UTC(2025, 5, 3) },
    ];
    const walks = [
      ...closedRanges.flatMap((filters) =>
        ['orderId', 'concertId', 'status']
          .flatMap((field) => [`${field},asc`, `${field},desc`])
          .map((term) => ({ filters, sort: sortOf(term) })),
      ),
      // A status alone, newest first (the default) and by concert: the sale's orders come first in both.
      ...['createdAt,desc', 'concertId,desc'].map((term) => ({
        filters: { status: 'REFUNDED' as const },
        sort: sortOf(term),
      })),
    ].filter(({ filters, sort }) => boundedColumnOf(filters, sort) !== undefined);
    expect(walks.length).toBeGreaterThan(12);
    for (const { filters, sort } of walks)
      expect({ filters, plan: planner.plan(filters, sort, 20) }).toEqual({ filters, plan: undefined });
  });
});
