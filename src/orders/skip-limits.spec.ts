import { describe, expect, it } from '@jest/globals';
import { mostPassed } from './skip-limits';

const TABLE = 10_000_000;

describe('how many orders a page by number may pass (docs/API.md §22)', () => {
  it('bounds an index read in order by the rate measured for its sort and kind of server', () => {
    const onReplica = mostPassed(
      { indexes: ['idx_replica_orders_total_price'], rule: 'index-order' },
      'totalPrice',
      TABLE,
      TABLE,
    );
    const onPrimary = mostPassed({ indexes: ['PRIMARY'], rule: 'index-order' }, 'orderId', TABLE, TABLE);
    expect(onReplica).toBeGreaterThan(100_000);
    expect(onPrimary).toBeGreaterThan(100_000);
    expect(Number.isFinite(onReplica) && Number.isFinite(onPrimary)).toBe(true);
  });

  it('lets a walk pass fewer matches the rarer they are among the entries it passes', () => {
    const walk = { indexes: ['idx_replica_orders_user_cover'], rule: 'walk' as const, readWhole: 0 };
    const common = mostPassed(walk, 'userId', TABLE / 2, TABLE);
    const rare = mostPassed(walk, 'userId', TABLE / 20, TABLE);
    expect(rare * 10).toBe(common);
  });

  it('leaves unbounded a member’s or concert’s orders and a sorted read, which the plan already bounds', () => {
    const member = { indexes: ['idx_replica_orders_user_cover'], rule: 'member-or-concert' as const };
    expect(mostPassed(member, 'totalPrice', 50, TABLE)).toBe(Infinity);
    const sorted = { indexes: ['idx_replica_orders_created'], rule: 'filter-index' as const, readWhole: 500 };
    expect(mostPassed(sorted, 'totalPrice', 500, TABLE)).toBe(Infinity);
    // The embedded database plans nothing: its tables are small.
    expect(mostPassed(undefined, 'totalPrice', 500, TABLE)).toBe(Infinity);
  });
});
