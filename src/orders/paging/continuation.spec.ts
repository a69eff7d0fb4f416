import { describe, expect, it } from '@jest/globals';
import type { SortKey } from '../query/sort';
import { ContinuationTokens, type Seek } from './continuation';

const tokens = new ContinuationTokens('a-secret-for-the-continuation-tests-0123');
const sort: SortKey[] = [
  { field: 'status', direction: 'ASC' },
  { field: 'totalPrice', direction: 'DESC' },
  { field: 'orderId', direction: 'DESC' },
];
const seek: Seek = { direction: 'after', key: ['ON_HOLD', 120.5, 77], bound: 1_000 };

describe('ContinuationTokens', () => {
  it('reads back what it wrote, stored codes and decimal prices exactly', () => {
    expect(tokens.read(tokens.write(seek, 4, 'scope'), 'after', 4, 'scope', sort)).toEqual(seek);
  });

  it('is URL-safe as it stands, so a link needs no escaping', () => {
    expect(tokens.write(seek, 4, 'scope')).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  });

  it('accepts it only for the direction, page and scope it was written for', () => {
    const token = tokens.write(seek, 4, 'scope');
    expect(tokens.read(token, 'before', 4, 'scope', sort)).toBeUndefined();
    expect(tokens.read(token, 'after', 5, 'scope', sort)).toBeUndefined();
    expect(tokens.read(token, 'after', 4, 'another scope', sort)).toBeUndefined();
  });

  it('refuses a token signed with another secret', () => {
    const other = new ContinuationTokens('another-secret-another-secret-0123456789');
    expect(tokens.read(other.write(seek, 4, 'scope'), 'after', 4, 'scope', sort)).toBeUndefined();
  });

  it('refuses a signed payload whose keys do not fit the sort (a token of an older layout)', () => {
    // Signed with the right secret, so only the shape check can refuse these.
    const wrongCount = tokens.write({ ...seek, key: ['ON_HOLD', 77] }, 4, 'scope');
    const wrongType = tokens.write({ ...seek, key: [3, 120.5, 77] }, 4, 'scope');
    expect(tokens.read(wrongCount, 'after', 4, 'scope', sort)).toBeUndefined();
    expect(tokens.read(wrongType, 'after', 4, 'scope', sort)).toBeUndefined();
  });
});
