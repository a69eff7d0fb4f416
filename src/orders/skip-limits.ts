import type { SortField } from './model';
import type { QueryPlan } from './query-plan';
import { REPLICA_INDEXES } from './replica-indexes';

/** What a page by number may spend passing the orders before it: 300 ms less the rest of its work and a margin for a
 * machine slower than the one measured (docs/API.md §22). */
export const SKIP_BUDGET_S = 0.2;

/** Index entries passed per second walking each sort's index, on a replica's own or a primary's, at 10M orders: the
 * slowest of either way, no filter or a status, warm or (a replica) its pool a fourteenth of its data (docs/BENCHMARKS.md,
 * "Pages by number"); a sort missing here is not walked there. */
const PASSED_PER_SECOND: Record<'replica' | 'primary', Partial<Record<SortField, number>>> = {
  replica: {
    orderId: 2_830_000,
    userId: 2_930_000,
    concertId: 2_930_000,
    totalPrice: 4_030_000,
    status: 4_930_000,
    createdAt: 4_540_000,
    updatedAt: 4_680_000,
  },
  // Creation time's index holds no status: each entry a status filter passes is a row read.
  primary: { orderId: 11_970_000, createdAt: 400_000 },
};

const REPLICA_INDEX_NAMES: ReadonlySet<string> = new Set(REPLICA_INDEXES.map(({ name }) => name));

/** How many of the entries a plan passes are matches: all in an index read in order; in a walk, the matches' share of
 * the table; in a month merge, one month's walk of each. */
function matchesPerEntry(plan: QueryPlan, matching: number, table: number): number {
  if (plan.rule === 'walk') return table > 0 ? Math.min(1, matching / table) : 1;
  if (plan.rule === 'month-merge')
    return 1 / Math.max(1, plan.branches?.filter(({ kind }) => kind === 'walk').length ?? 1);
  return 1;
}

/** The most orders a page by number may pass on its way through `plan`, of `matching` in a table of `table`: unbounded
 * where the plan reads a member's or concert's orders, or sorts what it reads (bounded by DB_FULL_SORT_MAX_ORDERS). */
export function mostPassed(plan: QueryPlan | undefined, field: SortField, matching: number, table: number): number {
  if (!plan || !['walk', 'index-order', 'month-merge'].includes(plan.rule)) return Number.POSITIVE_INFINITY;
  const kind = plan.indexes.some((index) => REPLICA_INDEX_NAMES.has(index)) ? 'replica' : 'primary';
  const rate = PASSED_PER_SECOND[kind][field] ?? Math.min(...Object.values(PASSED_PER_SECOND[kind]));
  return Math.floor(rate * SKIP_BUDGET_S * matchesPerEntry(plan, matching, table));
}
