import { describe, expect, it } from '@jest/globals';
import { getMetadataArgsStorage } from 'typeorm';
import { Order } from './order.entity';
import { parseSort } from './query/sort';
import { PRIMARY_KEY, type OrderColumn } from './index-fit';
import fc from 'fast-check';
import { boundingIndexes, QueryPlanner } from './query-plan';
import { REPLICA_INDEXES } from './replica-indexes';
import { ADMIN_SORT_FIELDS, type OrderFilters } from './model';

/** The indexes the entity declares: the rules are tested against the schema the service runs on. */
const indexes = getMetadataArgsStorage()
  .indices.filter((index) => index.target === Order)
  .map((index) => ({ name: index.name as string, columns: index.columns as OrderColumn[] }));
const planner = new QueryPlanner(indexes);

const sortOf = (...terms: string[]) => {
  const parsed = parseSort(terms, ADMIN_SORT_FIELDS);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.keys;
};
const MONTH = { createdFrom: Date.UTC(2025, 5, 1), createdBefore: Date.UTC(2025, 6, 1) };
const YEAR = { createdFrom: Date.UTC(2025, 0, 1), createdBefore: Date.UTC(2026, 0, 1) };
/** The bench data's sizes: 1M orders, of which a month holds 41,000 and the completed orders of a year 350,000. */
const TABLE = 1_000_000;
const planOf = (filters: OrderFilters, sort: string[], rowsWanted: number, matching?: number, range?: number) =>
  planner.plan(
    filters,
    sortOf(...sort),
    rowsWanted,
    matching === undefined ? undefined : { matching, table: TABLE, ...(range === undefined ? {} : { range }) },
  );

describe('QueryPlanner', () => {
  it('knows the three indexes the entity declares, none of them over status', () => {
    expect(indexes.map((index) => index.name).sort()).toEqual([
      'idx_orders_concert_created',
      'idx_orders_created',
      'idx_orders_user_created',
    ]);
  });

  describe('member-or-concert: one member’s or concert’s orders are few enough to sort whatever the order', () => {
    it('reads a member’s index for any sort, whatever else is filtered', () => {
      expect(planOf({ userId: 1, status: 'REFUNDED', ...YEAR }, ['totalPrice,desc'], 1000)).toMatchObject({
        indexes: ['idx_orders_user_created'],
        rule: 'member-or-concert',
      });
    });

    it('reads a concert’s index when no member is named', () => {
      expect(planOf({ concertId: 7, status: 'PAYMENT_COMPLETED' }, ['status,asc'], 20)).toMatchObject({
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
    ] as Array<[string, OrderFilters, string[], string]>)('%s', (_, filters, sort, index) => {
      expect(planOf(filters, sort, 50_000)).toEqual({ indexes: [index], rule: 'index-order' });
      // Without the sizes too: the service then reads the page without counting first.
      expect(planner.plan(filters, sortOf(...sort), 20)).toEqual({ indexes: [index], rule: 'index-order' });
    });

    it('reads a sort and its reverse from one index, and not a sort in two directions', () => {
      // The tie-break follows the sort: createdAt ascending walks forwards what the default walks backwards.
      expect(planOf({}, ['createdAt,asc'], 20)).toEqual({ indexes: ['idx_orders_created'], rule: 'index-order' });
      expect(planOf({}, ['createdAt,asc', 'orderId,desc'], 20)).toEqual({ indexes: [PRIMARY_KEY], rule: 'table-scan' });
    });
  });

  it('table-scan: with no filter and no index in the sort’s order, every order is read once, sizes or not', () => {
    expect(planOf({}, ['updatedAt,desc'], 20)).toEqual({ indexes: [PRIMARY_KEY], rule: 'table-scan' });
    expect(planner.plan({}, sortOf('totalPrice,asc'), 20)).toEqual({ indexes: [PRIMARY_KEY], rule: 'table-scan' });
    // No index holds status: sorting by it is sorting every order, as for a price.
    expect(planOf({}, ['status,asc', 'createdAt,asc', 'orderId,asc'], 20)?.rule).toBe('table-scan');
  });

  it('asks for the sizes where no rule decides from the shape alone', () => {
    expect(planner.plan({ status: 'REFUNDED' }, sortOf('updatedAt,desc'), 20)).toBeUndefined();
    expect(planner.plan({ status: 'REFUNDED' }, sortOf(), 20)).toBeUndefined();
    expect(planner.plan(MONTH, sortOf('orderId,asc'), 20)).toBeUndefined();
    expect(planOf(MONTH, ['updatedAt,desc'], 20)).toBeUndefined();
  });

  it('asks for the table’s size only where an index range may be read whole, the range’s where it holds the dates alone', () => {
    expect(planner.sizesWanted({ status: 'REFUNDED', ...MONTH })).toEqual({ table: true, range: true, span: false });
    expect(planner.sizesWanted({ status: 'REFUNDED', createdBefore: MONTH.createdBefore })).toEqual({
      table: true,
      range: true,
      span: false,
    });
    expect(planner.sizesWanted(MONTH)).toEqual({ table: true, range: false, span: false });
    expect(planner.sizesWanted({ status: 'REFUNDED' })).toEqual({ table: false, range: false, span: false });
  });

  it('plans a status alone the same whatever the table’s size: every candidate grows with it', () => {
    const sort = sortOf();
    for (const [rowsWanted, matching] of [
      [20, 80_000],
      [50_000, 80_000],
      [20, 100],
    ]) {
      const known = planner.plan({ status: 'REFUNDED' }, sort, rowsWanted, { matching, table: TABLE });
      expect(planner.plan({ status: 'REFUNDED' }, sort, rowsWanted, { matching })).toMatchObject({
        indexes: known?.indexes,
        rule: known?.rule,
      });
    }
  });

  describe('walk: an index in the sort’s order is walked, each row checked, while the matches are dense', () => {
    it('walks the primary key for a status that every twelfth order has: 20 rows need about 250 read', () => {
      expect(planOf({ status: 'REFUNDED' }, ['orderId,desc'], 20, 80_000)).toMatchObject({
        indexes: [PRIMARY_KEY],
        rule: 'walk',
      });
    });

    it('walks idx_orders_created for a status in the default order: about 250 lookups for a page of 20', () => {
      expect(planOf({ status: 'REFUNDED' }, [], 20, 80_000)).toMatchObject({
        indexes: ['idx_orders_created'],
        rule: 'walk',
      });
    });

    // The status is fixed by the filter, so sorting by it orders nothing; what remains is the index's order.
    it('walks it for a status sorted by status, then createdAt and orderId ascending', () => {
      expect(planOf({ status: 'REFUNDED' }, ['status,desc', 'createdAt,asc', 'orderId,asc'], 20, 80_000)).toMatchObject(
        {
          indexes: ['idx_orders_created'],
          rule: 'walk',
        },
      );
    });

    it('scans instead when the walk would look up more rows than a scan reads: page 2,500 of that status', () => {
      expect(planOf({ status: 'REFUNDED' }, [], 50_000, 80_000)).toMatchObject({
        indexes: [PRIMARY_KEY],
        rule: 'table-scan',
      });
    });

    it('walks only the dates’ range for a status within dates: a rare status on one day', () => {
      const day = { createdFrom: Date.UTC(2025, 5, 1), createdBefore: Date.UTC(2025, 5, 2) };
      // 110 matches among the day's 1,370 orders: at most 1,370 lookups, where the whole table would be a scan.
      expect(planOf({ status: 'REFUNDED', ...day }, [], 1000, 110, 1_370)).toMatchObject({
        indexes: ['idx_orders_created'],
        rule: 'walk',
      });
      // Without the range's size, the walk is weighed as if it could reach past the day: a scan is safer.
      expect(planOf({ status: 'REFUNDED', ...day }, [], 1000, 110)?.rule).toBe('table-scan');
    });

    it('walks the dates for the completed orders of a year oldest first: 350,000 of 500,000 match', () => {
      expect(
        planOf({ status: 'PAYMENT_COMPLETED', ...YEAR }, ['createdAt,asc', 'orderId,asc'], 20, 350_000, 500_000),
      ).toMatchObject({
        indexes: ['idx_orders_created'],
        rule: 'walk',
      });
    });

    it('reads one day through its index instead: page 50 would walk 730,000 rows for 1,400 matches', () => {
      const day = { createdFrom: Date.UTC(2025, 5, 1), createdBefore: Date.UTC(2025, 5, 2) };
      expect(planOf(day, ['orderId,asc'], 1000, 1_400)).toMatchObject({
        indexes: ['idx_orders_created'],
        rule: 'filter-index',
      });
    });
  });

  describe('filter-index: a match set small enough to sort is read through the filter’s index', () => {
    it('reads a month by its dates to sort it by updatedAt: 41,000 lookups cost about half a table scan', () => {
      expect(planOf(MONTH, ['updatedAt,desc'], 20, 41_000)).toMatchObject({
        indexes: ['idx_orders_created'],
        rule: 'filter-index',
      });
    });

    it('reads a status within a month by its dates to sort it otherwise: 41,000 lookups, not a million rows', () => {
      expect(planOf({ status: 'REFUNDED', ...MONTH }, ['totalPrice,asc'], 20, 3_300, 41_000)).toMatchObject({
        indexes: ['idx_orders_created'],
        rule: 'filter-index',
      });
    });

    it('reads the index when nothing matches: the range is empty', () => {
      expect(planOf(MONTH, ['totalPrice,asc'], 20, 0)?.rule).toBe('filter-index');
    });
  });

  it('table-scan: a status every twelfth order has is found faster by a scan than by 80,000 lookups', () => {
    expect(planOf({ status: 'REFUNDED' }, ['totalPrice,asc'], 20, 80_000)).toMatchObject({
      indexes: [PRIMARY_KEY],
      rule: 'table-scan',
    });
  });

  it('table-scan: matches too many to look up one by one are found by reading every order once', () => {
    // A year's 500,000 lookups cost about six table scans (350,000 took 450 ms against 125 ms on the bench data).
    expect(planOf({ status: 'PAYMENT_COMPLETED', ...YEAR }, ['updatedAt,desc'], 20, 350_000, 500_000)).toMatchObject({
      indexes: [PRIMARY_KEY],
      rule: 'table-scan',
    });
  });

  describe('docs/API.md §14: what the primary bounds, and what the replicas’ own indexes add', () => {
    const onReplica = new QueryPlanner([...indexes, ...REPLICA_INDEXES]);
    const FIELDS = ['orderId', 'userId', 'concertId', 'totalPrice', 'status', 'createdAt', 'updatedAt'];
    const SORTS = FIELDS.flatMap((field) => [`${field},asc`, `${field},desc`]);
    const FILTERS: OrderFilters[] = [{}, { status: 'REFUNDED' }, MONTH, { status: 'PAYMENT_COMPLETED', ...YEAR }];

    it('bounds on the primary a member’s or concert’s orders in any sort, and the sorts its indexes read in order', () => {
      for (const sort of SORTS) {
        expect(planner.bounded({ userId: 1, status: 'REFUNDED' }, sortOf(sort))).toBe(true);
        expect(planner.bounded({ concertId: 7, ...MONTH }, sortOf(sort))).toBe(true);
      }
      const boundedOnPrimary = SORTS.filter((sort) =>
        FILTERS.every((filters) => planner.bounded(filters, sortOf(sort))),
      );
      // Its creation-time index, walked either way: the tie-break follows the sort.
      expect(boundedOnPrimary).toEqual(['orderId,asc', 'orderId,desc', 'createdAt,asc', 'createdAt,desc']);
    });

    it('bounds a member’s orders nowhere without an index led by the member: a walk in the sort’s order passes the table', () => {
      const withoutMembers = new QueryPlanner(indexes.filter((index) => index.name !== 'idx_orders_user_created'));
      for (const sort of SORTS) {
        expect([sort, withoutMembers.bounded({ userId: 1 }, sortOf(sort))]).toEqual([sort, false]);
        expect([sort, withoutMembers.bounded({ userId: 1, concertId: 7 }, sortOf(sort))]).toEqual([sort, true]);
      }
      expect(withoutMembers.bounded({ status: 'REFUNDED' }, sortOf('createdAt,desc'))).toBe(true);
    });

    it('bounds every sort of every filter set with the replicas’ indexes', () => {
      for (const filters of FILTERS) {
        for (const sort of SORTS) expect([sort, onReplica.bounded(filters, sortOf(sort))]).toEqual([sort, true]);
      }
    });

    it('walks one index forwards for a sort and backwards for its reverse', () => {
      expect(onReplica.plan({}, sortOf('totalPrice,asc'), 20)).toMatchObject({
        indexes: ['idx_replica_orders_total_price'],
        rule: 'index-order',
      });
      expect(onReplica.plan({}, sortOf('totalPrice,desc'), 20)).toMatchObject({
        indexes: ['idx_replica_orders_total_price'],
        rule: 'index-order',
      });
      // Unfiltered, the smaller entries of the index every server holds serve both ways.
      expect(onReplica.plan({}, sortOf('createdAt,asc'), 20)).toMatchObject({
        indexes: ['idx_orders_created'],
        rule: 'index-order',
      });
    });

    it('sorts a member’s orders from a replica’s covering entries, and reads them in order where an index is in it', () => {
      expect(onReplica.plan({ userId: 1, status: 'REFUNDED' }, sortOf('totalPrice,desc'), 20)).toEqual({
        rule: 'member-or-concert',
        indexes: ['idx_replica_orders_user_cover'],
      });
      expect(onReplica.plan({ userId: 1, concertId: 7 }, sortOf('updatedAt,asc'), 20)).toEqual({
        rule: 'member-or-concert',
        indexes: ['idx_replica_orders_user_cover', 'idx_replica_orders_concert_cover'],
      });
      expect(onReplica.plan({ userId: 1 }, sortOf('createdAt,desc'), 20)).toEqual({
        rule: 'member-or-concert',
        indexes: ['idx_orders_user_created'],
      });
      // The primary has no covering index: the member's range, as before.
      expect(planner.plan({ userId: 1 }, sortOf('totalPrice,desc'), 20)?.indexes).toEqual(['idx_orders_user_created']);
    });

    it('walks rather than reads more orders whole than a server may, however cheap the scan looks', () => {
      // 300 orders, 25 refunded, a batch of 1,001: a scan reads the 300 once, the walk would read them all too.
      const small = { matching: 25, table: 300 };
      const sort = sortOf('concertId,desc');
      expect(onReplica.plan({ status: 'REFUNDED' }, sort, 1001, small)).toMatchObject({ rule: 'table-scan' });
      expect(onReplica.plan({ status: 'REFUNDED' }, sort, 1001, small, 10)).toEqual({
        rule: 'walk',
        indexes: ['idx_replica_orders_concert_cover'],
        readWhole: 0,
      });
    });

    it('walks a status newest first on the replica’s covering entries rather than the primary’s index with a lookup each', () => {
      const refunded = { matching: 800_000, table: 10_000_000 };
      expect(onReplica.plan({ status: 'REFUNDED' }, sortOf('createdAt,desc'), 1000, refunded)).toEqual({
        rule: 'walk',
        indexes: ['idx_replica_orders_created'],
        readWhole: 0,
      });
      // The primary holds none: its creation-time index, each order's status looked up.
      expect(planner.plan({ status: 'REFUNDED' }, sortOf('createdAt,desc'), 1000, refunded)?.indexes).toEqual([
        'idx_orders_created',
      ]);
    });

    it('walks a sort’s index checking the status in its entries, without reading rows', () => {
      // Refunded orders are 8 % of 1M: a page of 20 walks about 250 entries of the concert index.
      expect(
        onReplica.plan({ status: 'REFUNDED' }, sortOf('concertId,asc'), 20, { matching: 80_000, table: TABLE }),
      ).toEqual({ rule: 'walk', indexes: ['idx_replica_orders_concert_cover'], readWhole: 0 });
    });

    it('reads a status by price or by update time in order from its own stretch of a replica’s index, whatever the sizes', () => {
      for (const field of ['totalPrice', 'updatedAt'] as const) {
        const name = field === 'totalPrice' ? 'status_total_price' : 'status_updated';
        for (const direction of ['asc', 'desc'] as const) {
          expect(onReplica.plan({ status: 'REFUNDED' }, sortOf(`${field},${direction}`), 20)).toEqual({
            rule: 'index-order',
            indexes: [`idx_replica_orders_${name}`],
          });
        }
      }
    });

    it('walks a status’s stretch by price within dates, each entry’s date checked, rather than the price index', () => {
      // 10M orders, 2.5M of them before April 2025, 250,000 of those pending: about a tenth of the pending orders'
      // stretch holds matches, so a page of 20 walks about 80 entries there, and about 800 of the whole price index.
      const beforeApril = { createdBefore: Date.UTC(2025, 3, 1) };
      const sizes = { matching: 250_000, table: 10_000_000, range: 2_500_000 };
      for (const direction of ['asc', 'desc'] as const) {
        expect(
          onReplica.plan({ status: 'PAYMENT_PENDING', ...beforeApril }, sortOf(`totalPrice,${direction}`), 20, sizes),
        ).toEqual({ rule: 'walk', indexes: ['idx_replica_orders_status_total_price'], readWhole: 0 });
      }
      // By update time its stretch would be passed whole before the dates’ orders: the months are merged instead.
      expect(
        onReplica.plan({ status: 'REFUNDED', ...YEAR }, sortOf('updatedAt,desc'), 20, {
          ...sizes,
          span: { first: Date.UTC(2024, 0, 1), last: Date.UTC(2026, 10, 1) },
        })?.rule,
      ).toBe('month-merge');
    });

    it('merges the months of a range sorted by update time, each walked in update order, where a server holds the month index', () => {
      // June 2025, one of 24 months of 10M orders: a page of 20 walks about 20 entries of June's stretch.
      const month = { matching: 420_000, table: 10_000_000, range: 420_000 };
      expect(onReplica.plan(MONTH, sortOf('updatedAt,desc'), 20, month)).toEqual({
        rule: 'month-merge',
        indexes: ['idx_replica_orders_month_updated', 'idx_replica_orders_created_updated'],
        branches: [{ kind: 'walk', month: 202506 }],
        readWhole: 0,
      });
      // Ascending: the same index, walked forwards.
      expect(onReplica.plan(MONTH, sortOf('updatedAt,asc'), 20, month)?.indexes).toEqual([
        'idx_replica_orders_month_updated',
        'idx_replica_orders_created_updated',
      ]);
      // Without the month index (a replica not migrated since), the range's covering entries are sorted, as before.
      const withoutMonths = new QueryPlanner([
        ...indexes,
        ...REPLICA_INDEXES.filter((index) => !index.columns.includes('createdMonth')),
      ]);
      expect(withoutMonths.plan(MONTH, sortOf('updatedAt,desc'), 20, month)).toEqual({
        rule: 'filter-index',
        indexes: ['idx_replica_orders_created_updated'],
        readWhole: 420_000,
      });
    });

    it('reads a year of one status as twelve walks, whatever the table’s size, and sorts only an edge it covers less than half of', () => {
      // A year of 10M orders holds 5M, 3.5M of them completed: every page reads 12 × (offset + size) × 5/3.5 entries.
      const year = { matching: 3_500_000, table: 10_000_000, range: 5_000_000 };
      for (const rowsWanted of [20, 1000]) {
        const plan = onReplica.plan(
          { status: 'PAYMENT_COMPLETED', ...YEAR },
          sortOf('updatedAt,asc'),
          rowsWanted,
          year,
          1_000_000,
        );
        expect(plan).toMatchObject({ rule: 'month-merge', readWhole: 0 });
        expect(plan?.branches).toHaveLength(12);
      }
      // Seoul's year, nine hours before UTC's: December 2024's last nine hours are sorted, December 2025 walked.
      const seoulYear = { createdFrom: Date.UTC(2024, 11, 31, 15), createdBefore: Date.UTC(2025, 11, 31, 15) };
      const plan = onReplica.plan({ status: 'PAYMENT_COMPLETED', ...seoulYear }, sortOf('updatedAt,desc'), 20, year);
      expect(plan?.branches?.[0]).toEqual({ kind: 'sort', from: seoulYear.createdFrom, before: Date.UTC(2025, 0, 1) });
      expect(plan?.branches?.at(-1)).toEqual({ kind: 'walk', month: 202512 });
      // What it sorts whole is the edge's share of the range: 9 hours of 365 days.
      expect(plan?.readWhole).toBe(Math.round((5_000_000 * 9) / (365 * 24)));
    });

    it('closes an open side of the range at the months known to hold orders, and reads past them to stay exact', () => {
      const since = { createdFrom: Date.UTC(2026, 9, 1) };
      const span = { first: Date.UTC(2024, 10, 1, 3), last: Date.UTC(2026, 9, 31, 20) };
      expect(onReplica.sizesWanted(since)).toMatchObject({ span: true });
      // Without the span the plan waits for it.
      expect(onReplica.plan(since, sortOf('updatedAt,desc'), 20, { matching: 420_000, table: TABLE })?.rule).not.toBe(
        'month-merge',
      );
      expect(
        onReplica.plan(since, sortOf('updatedAt,desc'), 20, { matching: 420_000, table: TABLE, span })?.branches,
      ).toEqual([
        { kind: 'walk', month: 202610 },
        { kind: 'sort', from: Date.UTC(2026, 10, 1) },
      ]);
      const until: OrderFilters = { status: 'PAYMENT_PENDING', createdBefore: Date.UTC(2025, 2, 1) };
      expect(
        onReplica.plan(until, sortOf('updatedAt,asc'), 20, { matching: 40_000, table: TABLE, range: 400_000, span })
          ?.branches,
      ).toEqual([
        { kind: 'sort', before: Date.UTC(2024, 10, 1) },
        { kind: 'walk', month: 202411 },
        { kind: 'walk', month: 202412 },
        { kind: 'walk', month: 202501 },
        { kind: 'walk', month: 202502 },
      ]);
    });

    it('tells how many orders a range within a month sorts whole for each page: the range’s', () => {
      const twoWeeks = { createdFrom: Date.UTC(2025, 5, 3), createdBefore: Date.UTC(2025, 5, 17) };
      const plan = onReplica.plan(
        { status: 'PAYMENT_COMPLETED', ...twoWeeks },
        sortOf('updatedAt,asc'),
        20,
        { matching: 140_000, table: 10_000_000, range: 200_000 },
        100_000,
      );
      expect(plan?.readWhole).toBeGreaterThan(100_000);
      // A year of the same status by price: a walk of the price index, which stops when the page is full.
      const year = { matching: 3_500_000, table: 10_000_000, range: 5_000_000 };
      expect(
        onReplica.plan({ status: 'PAYMENT_COMPLETED', ...YEAR }, sortOf('totalPrice,desc'), 1000, year),
      ).toMatchObject({ rule: 'walk', readWhole: 0 });
    });
  });
});

describe('boundingIndexes', () => {
  const candidates = [...indexes, ...REPLICA_INDEXES];
  const filterSets: OrderFilters[] = [
    {},
    { userId: 1 },
    { concertId: 7 },
    { status: 'REFUNDED' },
    MONTH,
    { createdFrom: MONTH.createdFrom },
    { status: 'PAYMENT_COMPLETED', ...YEAR },
    { userId: 1, status: 'PAYMENT_COMPLETED' },
    { concertId: 7, status: 'PAYMENT_COMPLETED' },
    { status: 'PAYMENT_PENDING', createdBefore: Date.UTC(2025, 3, 1) },
  ];
  const sorts = ADMIN_SORT_FIELDS.flatMap((field) => [sortOf(`${field},asc`), sortOf(`${field},desc`)]);

  // Routing asks whether a server holds one of them; the planner asks whether its indexes bound the shape: the same.
  it('names a server whose indexes bound a shape exactly when it holds one of them', () => {
    fc.assert(
      fc.property(
        fc.subarray(candidates),
        fc.constantFrom(...filterSets),
        fc.constantFrom(...sorts),
        (held, filters, sort) => {
          const bounding = boundingIndexes(candidates, filters, sort);
          const holdsOne = bounding === undefined || held.some((index) => bounding.includes(index.name));
          expect(holdsOne).toBe(new QueryPlanner(held).bounded(filters, sort));
        },
      ),
      { numRuns: 2000, seed: 17 },
    );
  });

  it('asks nothing of a server for a shape the primary key bounds, and a member’s index for their orders', () => {
    expect(boundingIndexes(candidates, {}, sortOf('orderId,desc'))).toBeUndefined();
    expect(boundingIndexes(candidates, { userId: 1 }, sortOf('totalPrice,asc'))).toContain('idx_orders_user_created');
    expect(boundingIndexes(indexes, {}, sortOf('totalPrice,asc'))).toEqual([]);
  });
});
