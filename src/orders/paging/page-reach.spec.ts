import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { dayHolding, fromNearerEnd } from './page-reach';

describe('where a page by number is read from (docs/API.md §22)', () => {
  it('reads a page in the first half from the start, and one in the second from the end, the last one short', () => {
    expect(fromNearerEnd(40, 20, 1000)).toEqual({ offset: 40, limit: 20, reversed: false });
    expect(fromNearerEnd(980, 20, 1000)).toEqual({ offset: 0, limit: 20, reversed: true });
    // The last page of 1,001 holds one order: the first of the reversed listing.
    expect(fromNearerEnd(1000, 20, 1001)).toEqual({ offset: 0, limit: 1, reversed: true });
    expect(fromNearerEnd(1000, 20, 1000)).toBeUndefined();
  });

  it('reads, in reverse, exactly the orders OFFSET gives, for any page of any listing', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 500 }),
        fc.integer({ min: 1, max: 100 }),
        fc.nat(600),
        (total, size, at) => {
          const listing = Array.from({ length: total }, (_, index) => index);
          const offset = Math.floor(at / size) * size;
          const reached = fromNearerEnd(offset, size, total);
          const expected = listing.slice(offset, offset + size);
          if (!reached) return expect(expected).toEqual([]);
          const order = reached.reversed ? [...listing].reverse() : listing;
          const read = order.slice(reached.offset, reached.offset + reached.limit);
          expect(reached.reversed ? read.reverse() : read).toEqual(expected);
          // The nearer end: never more passed than the page's distance from the start.
          expect(reached.offset).toBeLessThanOrEqual(offset);
        },
      ),
    );
  });

  it('finds the day holding an offset and the offset within it, past empty days', () => {
    const days = [
      { day: 100, orders: 3 },
      { day: 101, orders: 0 },
      { day: 103, orders: 5 },
    ];
    expect(dayHolding(days, 0)).toEqual({ day: 100, offset: 0 });
    expect(dayHolding(days, 2)).toEqual({ day: 100, offset: 2 });
    expect(dayHolding(days, 3)).toEqual({ day: 103, offset: 0 });
    expect(dayHolding(days, 7)).toEqual({ day: 103, offset: 4 });
    expect(dayHolding(days, 8)).toBeUndefined();
  });
});
