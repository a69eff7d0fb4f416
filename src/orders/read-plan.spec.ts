import { describe, expect, it } from '@jest/globals';
import { getMetadataArgsStorage } from 'typeorm';
import { Order } from './order.entity';
import type { OrderFilters } from './query/list-orders-query';
import { parseSort, ADMIN_SORT_FIELDS } from './query/sort';
import { PRIMARY_KEY, ReadPlanner, type OrderColumn } from './read-plan';

/** The indexes the entity declares: the rules are tested against the schema the service runs on. */
const indexes = getMetadataArgsStorage()
  .indices.filter((index) => index.target === Order)
  .map((index) => ({ name: index.name as string, columns: index.columns as OrderColumn[] }));
const planner = new ReadPlanner(indexes);

const sortOf = (...terms: string[]) => {
  const parsed = parseSort(terms, ADMIN_SORT_FIELDS);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.keys;
};
const MONTH = { createdFrom: Date.UTC(2025, 5, 1), createdBefore: Date.UTC(2025, 6, 1) };
const YEAR = { createdFrom: Date.UTC(2025, 0, 1), createdBefore: Date.UTC(2026, 0, 1) };
/** The bench data's sizes: 1M orders, of which a month holds 41,000 and the completed orders of a year 350,000. */
const TABLE = 1_000_000;
const planOf = (filters: OrderFilters, sort: string[], rowsWanted: number, matching?: number) =>
  planner.plan(filters, sortOf(...sort), rowsWanted, matching === undefined ? undefined : { matching, table: TABLE });

describe('ReadPlanner', () => {
  it('knows the four indexes the entity declares', () => {
    expect(indexes.map((index) => index.name).sort()).toEqual([
      'idx_orders_concert_created',
      'idx_orders_created',
      'idx_orders_status_created',
      'idx_orders_user_created',
    ]);
  });

  describe('member-or-concert: one member’s or concert’s orders are few enough to sort whatever the order', () => {
    it('reads a member’s index for any sort, whatever else is filtered', () => {
      expect(planOf({ userId: 1, status: 'REFUNDED', ...YEAR }, ['totalPrice,desc'], 1000)).toEqual({
        indexes: ['idx_orders_user_created'],
        rule: 'member-or-concert',
      });
    });

    it('reads a concert’s index when no member is named', () => {
      expect(planOf({ concertId: 7, status: 'PAYMENT_COMPLETED' }, ['status,asc'], 20)).toEqual({
        indexes: ['idx_orders_concert_created'],
        rule: 'member-or-concert',
      });
    });

    it('leaves the server to pick the shorter of a member’s and a concert’s range, which it estimates exactly', () => {
      expect([...(planOf({ userId: 1, concertId: 7 }, ['updatedAt,asc'], 20)?.indexes ?? [])].sort()).toEqual([
        'idx_orders_concert_created',
        'idx_orders_user_created',
      ]);
    });
  });

  describe('index-order: an index whose order is the sort’s yields the page first, whatever the sizes', () => {
    it.each([
      ['no filter, the default sort', {}, ['createdAt,desc'], 'idx_orders_created'],
      ['no filter, by orderId', {}, ['orderId,asc'], PRIMARY_KEY],
      ['a month, the default sort', MONTH, ['createdAt,desc'], 'idx_orders_created'],
      [
        'a status within a year, the default sort',
        { status: 'PAYMENT_COMPLETED', ...YEAR },
        [],
        'idx_orders_status_created',
      ],
      // The status is fixed by the filter, so sorting by it orders nothing; what remains is the index's order.
      [
        'a status, by status then createdAt and orderId ascending',
        { status: 'REFUNDED' },
        ['status,desc', 'createdAt,asc', 'orderId,asc'],
        'idx_orders_status_created',
      ],
      [
        'no filter, by status, createdAt and orderId',
        {},
        ['status,asc', 'createdAt,asc', 'orderId,asc'],
        'idx_orders_status_created',
      ],
    ] as Array<[string, OrderFilters, string[], string]>)('%s', (_, filters, sort, index) => {
      expect(planOf(filters, sort, 50_000)).toEqual({ indexes: [index], rule: 'index-order' });
      expect(planner.planDependsOnSizes(filters, sortOf(...sort))).toBe(false);
    });

    it('does not take an index read in one direction for a sort in two (createdAt ascending, orderId descending)', () => {
      expect(planOf({}, ['createdAt,asc'], 20)).toEqual({ indexes: [PRIMARY_KEY], rule: 'table-scan' });
    });
  });

  it('table-scan: with no filter and no index in the sort’s order, every order is read once, sizes or not', () => {
    expect(planOf({}, ['updatedAt,desc'], 20)).toEqual({ indexes: [PRIMARY_KEY], rule: 'table-scan' });
    expect(planner.planDependsOnSizes({}, sortOf('totalPrice,asc'))).toBe(false);
  });

  it('asks for the sizes where no rule decides from the shape alone', () => {
    expect(planner.planDependsOnSizes({ status: 'REFUNDED' }, sortOf('updatedAt,desc'))).toBe(true);
    expect(planner.planDependsOnSizes(MONTH, sortOf('orderId,asc'))).toBe(true);
    expect(planOf(MONTH, ['updatedAt,desc'], 20)).toBeUndefined();
  });

  describe('key-walk: a sort by orderId walks the primary key while the matches are dense', () => {
    it('walks it for a status that every twelfth order has: 20 rows need about 250 read', () => {
      expect(planOf({ status: 'REFUNDED' }, ['orderId,desc'], 20, 80_000)).toEqual({
        indexes: [PRIMARY_KEY],
        rule: 'key-walk',
      });
    });

    it('reads one day through its index instead: page 50 would walk 730,000 rows for 1,400 matches', () => {
      const day = { createdFrom: Date.UTC(2025, 5, 1), createdBefore: Date.UTC(2025, 5, 2) };
      expect(planOf(day, ['orderId,asc'], 1000, 1_400)).toEqual({
        indexes: ['idx_orders_created'],
        rule: 'filter-index',
      });
    });
  });

  describe('filter-index: a match set small enough to sort is read through the filter’s index', () => {
    it('reads a month by its dates to sort it by updatedAt: 41,000 lookups cost about half a table scan', () => {
      expect(planOf(MONTH, ['updatedAt,desc'], 20, 41_000)).toEqual({
        indexes: ['idx_orders_created'],
        rule: 'filter-index',
      });
    });

    it('counts an index that holds the sort key as cheap to read: no lookup per row', () => {
      // 350,000 completed orders of a year by createdAt ascending: the index holds status, created_at and id.
      expect(planOf({ status: 'PAYMENT_COMPLETED', ...YEAR }, ['createdAt,asc'], 20, 350_000)).toEqual({
        indexes: ['idx_orders_status_created'],
        rule: 'filter-index',
      });
    });

    it('reads the index when nothing matches: the range is empty', () => {
      expect(planOf({ status: 'REFUNDED', ...MONTH }, ['totalPrice,asc'], 20, 0)?.rule).toBe('filter-index');
    });
  });

  it('table-scan: a status every twelfth order has is found faster by a scan than by 80,000 lookups', () => {
    expect(planOf({ status: 'REFUNDED' }, ['totalPrice,asc'], 20, 80_000)).toEqual({
      indexes: [PRIMARY_KEY],
      rule: 'table-scan',
    });
  });

  it('table-scan: matches too many to look up one by one are found by reading every order once', () => {
    // 350,000 lookups cost about four table scans (450 ms against 125 ms on the bench data).
    expect(planOf({ status: 'PAYMENT_COMPLETED', ...YEAR }, ['updatedAt,desc'], 20, 350_000)).toEqual({
      indexes: [PRIMARY_KEY],
      rule: 'table-scan',
    });
  });
});
