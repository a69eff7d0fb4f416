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
  /**
   * Given where `sizesWanted` asks for it. Without it (a status alone), every candidate's cost is proportional
   * to the table's size, so the choice is the same whatever the size.
   */
  table?: number;
  /**
   * About how many orders were created in the filters' date range, whatever else they filter (the whole days
   * the range touches): given where `sizesWanted` asks for it, for an index that holds the range and not the rest.
   */
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
  /**
   * Where the plan was chosen by the sizes: how many orders it reads whole for each page, sorting them or passing
   * them by: a range's or the table's, or an index walked across a date range (none for a walk that stops when the
   * page is full; not known for a table scan without the table's size).
   */
  readWhole?: number;
  /** For `month-merge`: the parts of the date range, each read through the first or second of `indexes`. */
  branches?: readonly MonthBranch[];
}

/**
 * What reading one row costs, in rows of a table scan: a row looked up from an index entry in the clustered index
 * (LOOKUP_ROW), and an entry that holds everything the query needs (COVERING_ROW). Measured on MariaDB with a warm
 * buffer pool by the query-plan suite's data; docs/adr/0004 says how.
 */
const SCAN_ROW = 1;
const LOOKUP_ROW = 14;
const COVERING_ROW = 2;

/**
 * Member and concert filters come first: one member's or concert's orders are a short range of their index, sorted
 * in memory whatever the sort. With both, the server picks the shorter range, which it estimates exactly.
 */
const SELECTIVE_FILTERS: ReadonlyArray<IndexColumn> = ['userId', 'concertId'];

/**
 * Chooses the query plan of a listing's page, so that it does not depend on the optimizer's guess from index
 * statistics (docs/adr/0004): the service knows how many orders match, exactly, from the totals it keeps. The rules,
 * in order:
 *
 * 1. `member-or-concert`: a member or concert filter reads that filter's index (the shorter, with both).
 * 2. `index-order`: an index whose leading columns hold every filter as one range, and whose order past the
 *    columns the filters fix is the sort's, is walked in order: every entry it yields is a match, so the
 *    page is the first rows it reads, whatever the sizes.
 * 3. Otherwise the plan depends on the sizes (`plan` answers undefined without them): the cheapest of
 *    - `walk`: an index in the sort's order (the primary key for `orderId`, `idx_orders_created` for
 *      `createdAt`) is walked, within the date range if it holds it, each entry's row checked against the
 *      other filters as it goes (a lookup per entry, but for the primary key's own rows); it reads about
 *      (offset + size) × walked / matching entries before the page is complete. This is how a status is
 *      listed on the primary: no index of its holds one, since every payment would rewrite its entry (docs/API.md
 *      §7). A replica's index led by the status, in the sort's order past it, is walked within that status's
 *      stretch, each entry's date checked without its row;
 *    - `filter-index`: the index range that holds the filters, every entry in it sorted (covering or with a
 *      lookup per row, and with one where the range holds only the dates and the row must be checked);
 *    - `table-scan`: every order read once in the clustered index's order, the matches sorted as they come;
 *    - `month-merge`: a date range sorted by update time, where a server holds the month index (a replica's): the
 *      first entries of each month the range covers, each walked in update order, merged, and the range's edges
 *      sorted (`monthMerge`).
 */
export class QueryPlanner {
  constructor(private readonly indexes: readonly OrdersIndex[]) {}

  /**
   * The plan for reading `rowsWanted` rows (offset + size) of a listing, or `undefined` when it depends on
   * the sizes and none were given. Among the plans the sizes choose from, one that reads more than
   * `mostReadWhole` orders whole for each page is taken only where no other is left, however cheap it looks
   * (a scan of a small table beats a walk for a big batch, and stops being small as the table grows).
   */
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
      // Where the server holds a member's or concert's index whose entries carry every column the sort and filters
      // need (a replica's), the range is sorted without reading its rows; one in the sort's order is read as is.
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
      // Within the date range when the index holds it; its matches assumed spread evenly over what is walked, but
      // where the index follows creation time, which puts the matches of a date range in one stretch of it.
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
    // An index led by the columns the filters fix, in the sort's order past them, whose entries hold the dates too:
    // walked within that stretch, each entry checked against the dates without reading its row. The stretch is
    // assumed to hold the fixed columns' share of the range's orders over the whole table (all of it with no match).
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
      // A month's walk stops at its page's worth of matches or its month's end, passing the entries of other
      // statuses on its way in the share the range holds them; the merge then sorts what the walks yielded. Like
      // any walk, that grows with how deep the page is, not with the table: only the edges are read whole.
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

  /**
   * The month index that walks this sort in order and the dates' covering index that sorts the edges, where the
   * server holds both and the shape is a date range, filtered by status or not, sorted by update time.
   */
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

  /**
   * The sizes a plan of these filters weighs besides the matches: the table's only where an index range may be
   * read whole (its cost does not grow with the table), the date range's only where an index holds the dates
   * and not the other filters.
   */
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

  /**
   * Whether some plan of this shape reads what its pages need and not the whole table (docs/API.md §14): a
   * member's or concert's range, or an index read in the sort's order (its walk stops when the page is full).
   * Otherwise every match is sorted for each page, which grows with the table.
   */
  bounded(filters: OrderFilters, sort: readonly SortKey[]): boolean {
    // A month merge reads a page of each month and sorts the edges, which the count then weighs (`plan`).
    if (this.monthMergeIndexes(filters, sort)) return true;
    const fixed = fixedColumns(filters);
    if (this.indexes.some((index) => fixed.includes(index.columns[0]) && SELECTIVE_FILTERS.includes(index.columns[0])))
      return true;
    // A member's or a concert's orders are a sliver of the table: on a server that lacks the index led by that
    // filter (one dropped by hand, a copy restored without it), a walk in the sort's order passes nearly every
    // order before its page is full, and the count reads the whole table.
    if (fixed.some((column) => SELECTIVE_FILTERS.includes(column))) return false;
    const filtered = filterColumns(filters);
    const order = effectiveOrder(sort, fixed);
    const primary: OrdersIndex = { name: PRIMARY_KEY, columns: ['id'] };
    return [primary, ...this.indexes].some(
      (index) =>
        (readsInOrder(index, [], order) && !walksAcrossDates(index, filtered)) ||
        (walksWithinFixed(index, fixed, filtered, order) && !walksAcrossDates(index, filtered, fixed.length)) ||
        (holdsAsOneRange(index, fixed, filtered) && readsInOrder(index, fixed, order)) ||
        // The dates' range read from entries that hold everything, however sorted: bounded by the orders the
        // filters select, as docs/API.md §14 allows.
        (index.columns[0] === 'createdAt' && filtered.includes('createdAt') && covers(index, filtered, order)),
    );
  }
}

/**
 * docs/API.md §14: the indexes of `candidates` any one of which bounds a listing of these filters in this sort, so
 * that a server holding one of them answers it within its deadline; undefined where the primary key alone bounds it,
 * which every server holds.
 */
export function boundingIndexes(
  candidates: readonly OrdersIndex[],
  filters: OrderFilters,
  sort: readonly SortKey[],
): string[] | undefined {
  if (new QueryPlanner([]).bounded(filters, sort)) return undefined;
  return candidates.filter((index) => new QueryPlanner([index]).bounded(filters, sort)).map((index) => index.name);
}
