import type { SortField } from './model';
import type { QueryPlan } from './query-plan';
import { REPLICA_INDEXES } from './replica-indexes';

/** What a page by number may spend passing the orders before it: the rest of the request's 300 ms (docs/API.md §22). */
const SKIP_BUDGET_S = 0.25;

/**
 * Orders passed per second on the way to a page by number, walking the index of each sort: on a replica through its
 * own index, on a primary through the schema's. Measured at 10M orders by `npm run bench -- --growth --pages`, the
 * slowest filter set of each sort (docs/BENCHMARKS.md, "Pages by number"); a sort missing here is not walked there.
 */
const PASSED_PER_SECOND: Record<'replica' | 'primary', Partial<Record<SortField, number>>> = {
  replica: {
    orderId: 2_000_000,
    concertId: 2_000_000,
    totalPrice: 2_000_000,
    status: 2_000_000,
    updatedAt: 2_000_000,
    userId: 2_000_000,
    createdAt: 2_000_000,
  },
  primary: { orderId: 2_000_000, createdAt: 1_000_000 },
};

const REPLICA_INDEX_NAMES: ReadonlySet<string> = new Set(REPLICA_INDEXES.map(({ name }) => name));

/** The most orders a page by number may pass on its way through `plan`: unbounded where the plan reads a member's or a
 * concert's orders, or sorts what it reads (bounded by DB_FULL_SORT_MAX_ORDERS), rather than walking an index. */
export function mostPassed(plan: QueryPlan | undefined, field: SortField): number {
  if (!plan || !['walk', 'index-order', 'month-merge'].includes(plan.rule)) return Number.POSITIVE_INFINITY;
  const kind = plan.indexes.some((index) => REPLICA_INDEX_NAMES.has(index)) ? 'replica' : 'primary';
  const rate = PASSED_PER_SECOND[kind][field] ?? Math.min(...Object.values(PASSED_PER_SECOND[kind]));
  return Math.floor(rate * SKIP_BUDGET_S);
}
