/** A date range by update time, read as the merge of parts each in update order or small enough to sort. */
export type MonthBranch =
  /** One month's stretch of the month index, walked in update order, each entry checked against the filters. */
  | { kind: 'walk'; month: number }
  /** A stretch read from covering entries and sorted: a month mostly outside the range, or past the known months. */
  | { kind: 'sort'; from?: number; before?: number };

/** When the oldest and newest orders were placed, as epoch ms: where an open side of a range ends. */
export interface CreationSpan {
  first: number;
  last: number;
}

/** A month the range covers less of is sorted: a walk in update order could pass the rest of the month first. */
const WALK_MIN_SHARE = 0.5;

const monthStartOf = (epochMs: number): number => {
  const date = new Date(epochMs);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
};
const nextMonthOf = (monthStart: number): number => {
  const date = new Date(monthStart);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
};
/** The month as the replicas' column holds it: EXTRACT(YEAR_MONTH FROM created_at), created_at being UTC. */
const monthNumberOf = (monthStart: number): number => {
  const date = new Date(monthStart);
  return date.getUTCFullYear() * 100 + date.getUTCMonth() + 1;
};

export interface MonthMerge {
  branches: MonthBranch[];
  /** The share of the range's time that its `sort` branches read whole (open sides counted as empty). */
  sortedShare: number;
}

/** The branches of a range `[from, before)` of creation time; `span` closes an open side for the months. */
export function monthMerge(from: number | undefined, before: number | undefined, span?: CreationSpan): MonthMerge {
  const low = from ?? (span && monthStartOf(span.first));
  const high = before ?? (span && nextMonthOf(monthStartOf(span.last)));
  if (low === undefined || high === undefined || low >= high) {
    return { branches: [{ kind: 'sort', from, before }], sortedShare: 1 };
  }
  const branches: MonthBranch[] = [];
  let sortedMs = 0;
  if (from === undefined) branches.push({ kind: 'sort', before: low });
  for (let start = monthStartOf(low); start < high; start = nextMonthOf(start)) {
    const end = nextMonthOf(start);
    const [partFrom, partBefore] = [Math.max(start, low), Math.min(end, high)];
    if (partBefore - partFrom >= WALK_MIN_SHARE * (end - start)) {
      branches.push({ kind: 'walk', month: monthNumberOf(start) });
    } else {
      branches.push({ kind: 'sort', from: partFrom, before: partBefore });
      sortedMs += partBefore - partFrom;
    }
  }
  if (before === undefined) branches.push({ kind: 'sort', from: high });
  return { branches, sortedShare: sortedMs / (high - low) };
}
