import {
  covers,
  effectiveOrder,
  filterColumns,
  fixedColumns,
  holdsAll,
  holdsAsOneRange,
  holdsDateRange,
  opensRange,
  PRIMARY_KEY,
  readsInOrder,
  sortByUpdate,
  walksAcrossDates,
  walksWithinFixed,
  type IndexColumn,
  type OrdersIndex,
} from './index-fit';
import { monthMerge, type CreationSpan, type MonthBranch } from './month-branches';
import type { OrderFilters, RangeBounds, SortKey } from './model';

/** What the service knows before it reads a page: how many orders match, and how many there are. */
export interface MatchSizes {
  matching: number;
  /** Given where `sizesWanted` asks for it. */
  table?: number;
  /** About how many orders the filters' date range holds (its whole days), where `sizesWanted` asks for it. */
  range?: number;
  /** When the oldest and newest orders were placed: given where `sizesWanted` asks for it, for a month merge. */
  span?: CreationSpan;
  /** Where every match lies in the sort's first column (docs/adr/0020): read where the repository asks for them. */
  bounds?: RangeBounds;
}

/** Which sizes besides the matches a plan weighs, so that the service sums no more than the plan needs. */
export interface SizesWanted {
  table: boolean;
  range: boolean;
  span: boolean;
}

export type PlanRule = 'member-or-concert' | 'index-order' | 'walk' | 'filter-index' | 'table-scan' | 'month-merge';

/** Which indexes the page's ids may be read through (the server picks among several), and the rule that chose them. */
export interface QueryPlan {
  indexes: readonly string[];
  rule: PlanRule;
  /** Where the sizes chose the plan: how many orders it reads whole for each page (0 for a walk that stops). */
  readWhole?: number;
  /** For `month-merge`: the parts of the date range, each read through the first or second of `indexes`. */
  branches?: readonly MonthBranch[];
}

/** What reading a row costs in rows of a table scan: through an index entry's lookup, or from a covering entry. */
const SCAN_ROW = 1;
const LOOKUP_ROW = 14;
const COVERING_ROW = 2;

/** A member's or concert's orders are a short range of their index, sorted in memory whatever the sort. */
const SELECTIVE_FILTERS: ReadonlyArray<IndexColumn> = ['userId', 'concertId'];

/** Chooses a page's plan from exact match counts, not the optimizer's guess from statistics (docs/adr/0004). */
export class QueryPlanner {
  constructor(private readonly indexes: readonly OrdersIndex[]) {}

  /** The plan for `rowsWanted` rows (offset + size); undefined when it depends on sizes not given. */
  plan(
    filters: OrderFilters,
    sort: readonly SortKey[],
    rowsWanted: number,
    sizes?: MatchSizes,
    mostReadWhole = Number.POSITIVE_INFINITY,
  ): QueryPlan | undefined {
    const fixed = fixedColumns(filters);
    const filtered = filterColumns(filters);
    const order = effectiveOrder(sort, fixed);

    const selective = this.indexes.filter(
      (index) => fixed.includes(index.columns[0]) && SELECTIVE_FILTERS.includes(index.columns[0]),
    );
    if (selective.length > 0) {
      // A covering member or concert index sorts its range without rows; one in sort order is read as is.
      const inOrder = selective.find(
        (index) => holdsAsOneRange(index, fixed, filtered) && readsInOrder(index, fixed, order),
      );
      const covering = selective.filter((index) => covers(index, filtered, order));
      const chosen = inOrder ? [inOrder] : covering.length > 0 ? covering : selective;
      return { indexes: chosen.map((index) => index.name), rule: 'member-or-concert' };
    }
    const primary: OrdersIndex = { name: PRIMARY_KEY, columns: ['id'] };
    const inOrder = [primary, ...this.indexes].find(
      (index) => holdsAsOneRange(index, fixed, filtered) && readsInOrder(index, fixed, order),
    );
    if (inOrder) return { indexes: [inOrder.name], rule: 'index-order' };
    // With no filter every order matches: nothing to choose between but reading them all.
    if (filtered.length === 0) return { indexes: [PRIMARY_KEY], rule: 'table-scan' };
    if (!sizes) return undefined;

    const { matching } = sizes;
    // Left out only where every candidate below grows with the table (`sizesWanted`): any size chooses alike.
    const table = sizes.table ?? 1;
    // The range's estimate sums folded days alone (`sizes`): orders not folded yet may leave it short of its matches.
    const range = sizes.range === undefined ? undefined : Math.max(sizes.range, matching);
    const candidates: Array<QueryPlan & { cost: number }> = [
      { indexes: [PRIMARY_KEY], rule: 'table-scan', cost: table * SCAN_ROW, readWhole: sizes.table },
    ];
    for (const index of [primary, ...this.indexes].filter((index) => readsInOrder(index, [], order))) {
      // Matches are assumed spread evenly over what is walked, but a creation-time index holds a range together.
      const walkable = holdsDateRange(index, filtered) ? (range ?? table) : table;
      const walked = walksAcrossDates(index, filtered)
        ? walkable
        : Math.min(walkable, matching === 0 ? walkable : (rowsWanted * walkable) / matching);
      // An entry that holds every filtered column is checked without reading its row.
      const perEntry = index === primary ? SCAN_ROW : holdsAll(index, filtered) ? COVERING_ROW : LOOKUP_ROW;
      // A walk stops when its page is full, but for one across a date range, which may pass the whole index first.
      const readWhole = walksAcrossDates(index, filtered) ? walked : 0;
      candidates.push({ indexes: [index.name], rule: 'walk', cost: walked * perEntry, readWhole });
    }
    // An index led by the fixed columns, in sort order past them, holding the dates: walked without rows.
    for (const index of this.indexes.filter((index) => walksWithinFixed(index, fixed, filtered, order))) {
      const stretch = matching === 0 || range === undefined ? table : Math.min(table, (table * matching) / range);
      const across = walksAcrossDates(index, filtered, fixed.length);
      const walked = across ? stretch : Math.min(stretch, matching === 0 ? stretch : (rowsWanted * stretch) / matching);
      candidates.push({
        indexes: [index.name],
        rule: 'walk',
        cost: walked * COVERING_ROW,
        readWhole: across ? walked : 0,
      });
    }
    // Every index range that holds the filters, its entries sorted: covering, or with a lookup per entry.
    for (const index of this.indexes.filter((index) => holdsAsOneRange(index, fixed, filtered))) {
      const perEntry = covers(index, filtered, order) ? COVERING_ROW : LOOKUP_ROW;
      candidates.push({
        indexes: [index.name],
        rule: 'filter-index',
        cost: matching * perEntry,
        readWhole: matching,
      });
    }
    if (range !== undefined) {
      for (const index of this.indexes.filter((index) => holdsDateRange(index, filtered))) {
        const perEntry = covers(index, filtered, order) ? COVERING_ROW : LOOKUP_ROW;
        candidates.push({
          indexes: [index.name],
          rule: 'filter-index',
          cost: range * perEntry,
          readWhole: range,
        });
      }
    }
    const merge = this.monthMergeIndexes(filters, sort);
    if (merge && (sizes.span !== undefined || !opensRange(filters))) {
      const { branches, sortedShare } = monthMerge(filters.createdFrom, filters.createdBefore, sizes.span);
      const ranged = range ?? matching;
      const walks = branches.filter((branch) => branch.kind === 'walk').length;
      const sorted = Math.round(ranged * sortedShare);
      // A month's walk stops at a page of matches or its month's end; the merge then sorts what the walks yield.
      const month = walks === 0 ? 0 : (ranged - sorted) / walks;
      const walked = Math.min(month, matching === 0 ? month : (rowsWanted * ranged) / matching);
      const merged = Math.min(walks * rowsWanted, matching);
      candidates.push({
        indexes: merge,
        rule: 'month-merge',
        branches,
        cost: (walks * walked + merged + sorted) * COVERING_ROW,
        readWhole: sorted,
      });
    }
    const within = candidates.filter((candidate) => (candidate.readWhole ?? Number.POSITIVE_INFINITY) <= mostReadWhole);
    const { indexes, rule, readWhole, branches } = (within.length > 0 ? within : candidates).reduce(
      (best, candidate) => (candidate.cost < best.cost ? candidate : best),
    );
    return { indexes, rule, readWhole, ...(branches && { branches }) };
  }

  /** The month index that walks this sort and the dates' covering index for the edges, for dates by update time. */
  private monthMergeIndexes(filters: OrderFilters, sort: readonly SortKey[]): string[] | undefined {
    const fixed = fixedColumns(filters);
    const filtered = filterColumns(filters);
    if (!filtered.includes('createdAt') || fixed.some((column) => column !== 'status')) return undefined;
    const order = effectiveOrder(sort, fixed);
    const walked = this.indexes.find(
      (index) =>
        index.columns[0] === 'createdMonth' &&
        holdsAll(index, filtered) &&
        readsInOrder(index, ['createdMonth'], order),
    );
    const sorted = this.indexes.find((index) => index.columns[0] === 'createdAt' && covers(index, filtered, order));
    return walked && sorted ? [walked.name, sorted.name] : undefined;
  }

  /** The sizes a plan weighs besides the matches: the table's and the range's, where an index makes them count. */
  sizesWanted(filters: OrderFilters): SizesWanted {
    const fixed = fixedColumns(filters);
    const filtered = filterColumns(filters);
    const range = this.indexes.some((index) => holdsDateRange(index, filtered));
    return {
      table: range || this.indexes.some((index) => holdsAsOneRange(index, fixed, filtered)),
      range,
      span: opensRange(filters) && this.monthMergeIndexes(filters, sortByUpdate) !== undefined,
    };
  }

  /** Whether some plan of this shape reads what its pages need rather than the whole table. */
  bounded(filters: OrderFilters, sort: readonly SortKey[]): boolean {
    // A month merge reads a page of each month and sorts the edges, which the count then weighs (`plan`).
    if (this.monthMergeIndexes(filters, sort)) return true;
    const fixed = fixedColumns(filters);
    if (this.indexes.some((index) => fixed.includes(index.columns[0]) && SELECTIVE_FILTERS.includes(index.columns[0])))
      return true;
    // Without the index a member or concert filter leads, a walk passes nearly every order first.
    if (fixed.some((column) => SELECTIVE_FILTERS.includes(column))) return false;
    const filtered = filterColumns(filters);
    const order = effectiveOrder(sort, fixed);
    const primary: OrdersIndex = { name: PRIMARY_KEY, columns: ['id'] };
    return [primary, ...this.indexes].some(
      (index) =>
        (readsInOrder(index, [], order) && !walksAcrossDates(index, filtered)) ||
        (walksWithinFixed(index, fixed, filtered, order) && !walksAcrossDates(index, filtered, fixed.length)) ||
        (holdsAsOneRange(index, fixed, filtered) && readsInOrder(index, fixed, order)) ||
        // The dates' range read from covering entries: bounded by the orders the filters select.
        (index.columns[0] === 'createdAt' && filtered.includes('createdAt') && covers(index, filtered, order)),
    );
  }
}

/** The indexes of `candidates` any one of which bounds this shape; undefined where the primary key does. */
export function boundingIndexes(
  candidates: readonly OrdersIndex[],
  filters: OrderFilters,
  sort: readonly SortKey[],
): string[] | undefined {
  if (new QueryPlanner([]).bounded(filters, sort)) return undefined;
  return candidates.filter((index) => new QueryPlanner([index]).bounded(filters, sort)).map((index) => index.name);
}
