import { describe, expect, it } from '@jest/globals';
import { monthMerge } from './month-branches';

const SPAN = { first: Date.UTC(2024, 10, 1, 0, 5), last: Date.UTC(2026, 9, 31, 23, 50) };

describe('monthMerge', () => {
  it('walks each whole month of a range, and nothing is sorted', () => {
    expect(monthMerge(Date.UTC(2025, 0, 1), Date.UTC(2025, 3, 1))).toEqual({
      branches: [
        { kind: 'walk', month: 202501 },
        { kind: 'walk', month: 202502 },
        { kind: 'walk', month: 202503 },
      ],
      sortedShare: 0,
    });
  });

  it('walks a month the range covers half of or more, and sorts the part of one it covers less of', () => {
    // 2025-06-10 to 2025-08-05: June from the 10th (21 of 30 days) walked, July whole, August's 4 days sorted.
    const { branches, sortedShare } = monthMerge(Date.UTC(2025, 5, 10), Date.UTC(2025, 7, 5));
    expect(branches).toEqual([
      { kind: 'walk', month: 202506 },
      { kind: 'walk', month: 202507 },
      { kind: 'sort', from: Date.UTC(2025, 7, 1), before: Date.UTC(2025, 7, 5) },
    ]);
    expect(sortedShare).toBeCloseTo(4 / 56, 10);
  });

  it('sorts a range within less than half of one month as it is', () => {
    const [from, before] = [Date.UTC(2025, 5, 3), Date.UTC(2025, 5, 10)];
    expect(monthMerge(from, before).branches).toEqual([{ kind: 'sort', from, before }]);
  });

  it('closes an open side at the span’s month, with a sorted part past it for orders placed since', () => {
    expect(monthMerge(Date.UTC(2026, 8, 1), undefined, SPAN).branches).toEqual([
      { kind: 'walk', month: 202609 },
      { kind: 'walk', month: 202610 },
      { kind: 'sort', from: Date.UTC(2026, 10, 1) },
    ]);
    expect(monthMerge(undefined, Date.UTC(2024, 11, 1), SPAN).branches).toEqual([
      { kind: 'sort', before: Date.UTC(2024, 10, 1) },
      { kind: 'walk', month: 202411 },
    ]);
  });

  it('sorts the whole range where no span closes it, or the range lies outside the span', () => {
    expect(monthMerge(undefined, Date.UTC(2025, 0, 1)).branches).toEqual([
      { kind: 'sort', from: undefined, before: Date.UTC(2025, 0, 1) },
    ]);
    expect(monthMerge(undefined, Date.UTC(2024, 5, 1), SPAN)).toEqual({
      branches: [{ kind: 'sort', from: undefined, before: Date.UTC(2024, 5, 1) }],
      sortedShare: 1,
    });
  });

  it('numbers months as the replicas’ column does, across a year’s end', () => {
    expect(monthMerge(Date.UTC(2025, 11, 1), Date.UTC(2026, 1, 1)).branches).toEqual([
      { kind: 'walk', month: 202512 },
      { kind: 'walk', month: 202601 },
    ]);
  });
});
