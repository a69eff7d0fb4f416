// docs/API.md §22: where a page asked by number is read from, so that the last page costs what the first does.

/** From this offset on, a page by number is counted first and read from where it lies; below it OFFSET costs less. */
export const DEEP_OFFSET = 1000;

/** A page's rows as read from the nearer end: `reversed` when read in the reverse sort, to be put back in order. */
export interface NearerEnd {
  offset: number;
  limit: number;
  reversed: boolean;
}

/** Where the page at `offset` of `total` matches is read from; undefined past the end, where the page is empty. */
export function fromNearerEnd(offset: number, size: number, total: number): NearerEnd | undefined {
  if (offset >= total) return undefined;
  const after = total - offset - size;
  if (after >= offset) return { offset, limit: size, reversed: false };
  // The last page may be short: it holds what lies between its offset and the end.
  return { offset: Math.max(0, after), limit: Math.min(size, total - offset), reversed: true };
}

/** The day holding the match at `offset`, of days in the sort's order, and the offset within it. */
export function dayHolding(
  days: ReadonlyArray<{ day: number; orders: number }>,
  offset: number,
): { day: number; offset: number } | undefined {
  let before = 0;
  for (const { day, orders } of days) {
    if (offset < before + orders) return { day, offset: offset - before };
    before += orders;
  }
  return undefined;
}
