import { describe, expect, it } from '@jest/globals';
import { ContinuationTokens } from './continuation';
import type { KeysetCursor, SortKey } from '../model';

const tokens = new ContinuationTokens('a-secret-for-the-continuation-tests-0123');
const sort: SortKey[] = [
  { field: 'status', direction: 'ASC' },
  { field: 'totalPrice', direction: 'DESC' },
  { field: 'orderId', direction: 'DESC' },
];
const cursor: KeysetCursor = { direction: 'after', key: ['ON_HOLD', 120.5, 77], bound: 1_000 };

describe('ContinuationTokens', () => {
  it('reads back what it wrote, stored codes and decimal prices exactly', () => {
    expect(tokens.read(tokens.write(cursor, 4, 'scope'), 'after', 4, 'scope', sort)).toEqual(cursor);
  });

  it('is URL-safe as it stands, so a link needs no escaping', () => {
    expect(tokens.write(cursor, 4, 'scope')).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('shows nothing of what it holds: no value can be read from it, nor told apart by its length', () => {
    const token = tokens.write({ ...cursor, bound: 987_654_321 }, 4, 'scope');
    const bytes = Buffer.from(token, 'base64url');
    expect(bytes.toString('latin1')).not.toMatch(/987|ON_HOLD|120\.5/);
    expect(() => JSON.parse(bytes.toString('utf8')) as unknown).toThrow();
    const small = tokens.write({ ...cursor, bound: 7, key: ['ON_HOLD', 1, 2] }, 4, 'scope');
    expect(small.length).toBe(token.length);
  });

  it('writes the same link the same way, and different links differently', () => {
    expect(tokens.write(cursor, 4, 'scope')).toBe(tokens.write(cursor, 4, 'scope'));
    expect(tokens.write(cursor, 4, 'scope')).not.toBe(tokens.write({ ...cursor, bound: 1_001 }, 4, 'scope'));
  });

  it('refuses a token with a byte changed', () => {
    const bytes = Buffer.from(tokens.write(cursor, 4, 'scope'), 'base64url');
    bytes[20] ^= 1;
    expect(tokens.read(bytes.toString('base64url'), 'after', 4, 'scope', sort)).toBeUndefined();
  });

  it('accepts it only for the direction, page and scope it was written for', () => {
    const token = tokens.write(cursor, 4, 'scope');
    expect(tokens.read(token, 'before', 4, 'scope', sort)).toBeUndefined();
    expect(tokens.read(token, 'after', 5, 'scope', sort)).toBeUndefined();
    expect(tokens.read(token, 'after', 4, 'another scope', sort)).toBeUndefined();
  });

  it('refuses a token sealed with another secret', () => {
    const other = new ContinuationTokens('another-secret-another-secret-0123456789');
    expect(tokens.read(other.write(cursor, 4, 'scope'), 'after', 4, 'scope', sort)).toBeUndefined();
  });

  it('refuses a sealed payload whose keys do not fit the sort (a token of an older layout)', () => {
    // Sealed with the right secret, so only the shape check can refuse these.
    const wrongCount = tokens.write({ ...cursor, key: ['ON_HOLD', 77] }, 4, 'scope');
    const wrongType = tokens.write({ ...cursor, key: [3, 120.5, 77] }, 4, 'scope');
    expect(tokens.read(wrongCount, 'after', 4, 'scope', sort)).toBeUndefined();
    expect(tokens.read(wrongType, 'after', 4, 'scope', sort)).toBeUndefined();
  });
});
