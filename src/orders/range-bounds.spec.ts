import { describe, expect, it } from '@jest/globals';
import { getMetadataArgsStorage } from 'typeorm';
import { type OrderColumn } from './index-fit';
import { ADMIN_SORT_FIELDS, type OrderFilters } from './model';
import { Order } from './order.entity';
import { parseSort } from './query/sort';
import { boundedColumnOf, CLOSED_AFTER_MS } from './range-bounds';
import { ReadPlanner } from './read-plan';
import { REPLICA_INDEXES } from './replica-indexes';

const NOW = Date.UTC(2026, 10, 28, 12);
const DAY_MS = 86_400_000;

const sortOf = (...terms: string[]) => {
  const parsed = parseSort(terms, ADMIN_SORT_FIELDS);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.keys;
};

describe('boundedColumnOf: which walks start and stop at their days’ bounds (docs/adr/0014)', () => {
  const year2025 = { createdFrom: Date.UTC(2025, 0, 1), createdBefore: Date.UTC(2026, 0, 1) };

  it('bounds a closed range sorted first by id or by concert, and by status where the status is fixed', () => {
    expect(boundedColumnOf(year2025, sortOf('orderId,desc'), NOW)).toBe('orderId');
    expect(boundedColumnOf(year2025, sortOf('concertId,desc'), NOW)).toBe('concertId');
    expect(boundedColumnOf({ ...year2025, status: 'REFUNDED' }, sortOf('status,asc'), NOW)).toBe('orderId');
    expect(boundedColumnOf({ createdBefore: Date.UTC(2025, 3, 1) }, sortOf('concertId,asc'), NOW)).toBe('concertId');
  });

  it('bounds no other sort, and no member’s or concert’s orders', () => {
    expect(boundedColumnOf(year2025, sortOf('createdAt,desc'), NOW)).toBeUndefined();
    expect(boundedColumnOf(year2025, sortOf('status,asc'), NOW)).toBeUndefined();
    expect(boundedColumnOf(year2025, sortOf('totalPrice,desc'), NOW)).toBeUndefined();
    expect(boundedColumnOf({ ...year2025, userId: 7 }, sortOf('orderId,desc'), NOW)).toBeUndefined();
    expect(boundedColumnOf({ ...year2025, concertId: 7 }, sortOf('concertId,desc'), NOW)).toBeUndefined();
  });

  it('bounds a range once it ended an hour ago, never an open one', () => {
    const endingNow = { createdBefore: NOW };
    expect(boundedColumnOf(endingNow, sortOf('orderId,desc'), NOW)).toBeUndefined();
    expect(boundedColumnOf(endingNow, sortOf('orderId,desc'), NOW + CLOSED_AFTER_MS - 1)).toBeUndefined();
    expect(boundedColumnOf(endingNow, sortOf('orderId,desc'), NOW + CLOSED_AFTER_MS)).toBe('orderId');
    expect(boundedColumnOf({ createdFrom: NOW - 30 * DAY_MS }, sortOf('orderId,desc'), NOW)).toBeUndefined();
    expect(boundedColumnOf({ status: 'REFUNDED' }, sortOf('orderId,desc'), NOW)).toBeUndefined();
  });

  it('names only shapes whose every plan reads the counts first, where the bounds are read', () => {
    // The replica's indexes and the schema's: the server with the most plans that need no counts.
    const schema = getMetadataArgsStorage()
      .indices.filter(({ target }) => target === Order)
      .map(({ name, columns }) => ({ name: name ?? '', columns: columns as OrderColumn[] }));
    const planner = new ReadPlanner([...schema, ...REPLICA_INDEXES]);
    const filterSets: OrderFilters[] = [
      year2025,
      { ...year2025, status: 'PAYMENT_COMPLETED' },
      { createdBefore: Date.UTC(2025, 3, 1), status: 'PAYMENT_PENDING' },
      { createdFrom: Date.UTC(2025, 5, 2), createdBefore: Date.UTC(2025, 5, 3) },
    ];
    const bounded = filterSets.flatMap((filters) =>
      ['orderId', 'concertId', 'status']
        .flatMap((field) => [`${field},asc`, `${field},desc`])
        .map((term) => ({ filters, sort: sortOf(term) }))
        .filter(({ filters, sort }) => boundedColumnOf(filters, sort, NOW) !== undefined),
    );
    expect(bounded.length).toBeGreaterThan(10);
    for (const { filters, sort } of bounded)
      expect({ filters, plan: planner.plan(filters, sort, 20) }).toEqual({ filters, plan: undefined });
  });
});
