import { describe, expect, it } from '@jest/globals';
import type { CursorDirection } from '../model';
import { linkHeader, pageLinks, type WalkProgress } from './link-header';

/** A page's links with the tokens `continuation` writes for each, as the controller writes them. */
const buildLinkHeader = (
  path: string,
  parameters: Array<[string, string]>,
  currentPage: number,
  totalPages: number,
  continuation?: (direction: CursorDirection, page: number) => string | undefined,
  walk?: WalkProgress,
) =>
  linkHeader(
    path,
    parameters,
    pageLinks(currentPage, totalPages, walk).map((link) => ({
      ...link,
      token: link.direction && continuation?.(link.direction, link.page),
    })),
  );

const parameters: Array<[string, string]> = [
  ['size', '20'],
  ['sort', 'createdAt,desc'],
  ['orderStatus', '결제 완료'],
];

describe('pageLinks and linkHeader', () => {
  it('links first, prev, next and last, repeating every parameter but page', () => {
    const rest = '&size=20&sort=createdAt,desc&orderStatus=%EA%B2%B0%EC%A0%9C%20%EC%99%84%EB%A3%8C';
    expect(buildLinkHeader('/orders', parameters, 3, 5)).toBe(
      [
        `</orders?page=1${rest}>; rel="first"`,
        `</orders?page=2${rest}>; rel="prev"`,
        `</orders?page=4${rest}>; rel="next"`,
        `</orders?page=5${rest}>; rel="last"`,
      ].join(', '),
    );
  });

  it('has no prev on page 1 and no next on the last page', () => {
    expect(buildLinkHeader('/orders', [], 1, 1)).toBe('</orders?page=1>; rel="first", </orders?page=1>; rel="last"');
  });

  it('still links back from a page past the end', () => {
    expect(buildLinkHeader('/orders', [], 7, 2)).toBe(
      '</orders?page=1>; rel="first", </orders?page=6>; rel="prev", </orders?page=2>; rel="last"',
    );
  });

  it('adds the walk’s continuation to next (after) and prev (before) only, for the page each targets', () => {
    const continuation = (direction: string, page: number) => `${direction}-token-for-${page}`;
    expect(buildLinkHeader('/orders', [['size', '5']], 3, 5, continuation)).toBe(
      [
        '</orders?page=1&size=5>; rel="first"',
        '</orders?page=2&size=5&before=before-token-for-2>; rel="prev"',
        '</orders?page=4&size=5&after=after-token-for-4>; rel="next"',
        '</orders?page=5&size=5>; rel="last"',
      ].join(', '),
    );
    // No element to continue from (a page past the end): the plain link of docs/API.md §4.
    expect(buildLinkHeader('/orders', [], 7, 2, () => undefined)).toContain('</orders?page=6>; rel="prev"');
  });

  it('on a followed page, links on in the walk’s direction exactly while the walk has orders past the page', () => {
    const rels = (header: string | undefined) => [...(header ?? '').matchAll(/rel="(\w+)"/g)].map(([, rel]) => rel);
    // The totals say page 4 is not the last, but the walk has nothing after it (its orders moved or went): no next.
    expect(rels(buildLinkHeader('/orders', [], 4, 9, undefined, { direction: 'after', more: false }))).toEqual([
      'first',
      'prev',
      'last',
    ]);
    // The totals say page 4 is the last, but the walk has more (an order moved ahead of it): next all the same.
    expect(rels(buildLinkHeader('/orders', [], 4, 4, undefined, { direction: 'after', more: true }))).toEqual([
      'first',
      'prev',
      'next',
      'last',
    ]);
    expect(rels(buildLinkHeader('/orders', [], 3, 9, undefined, { direction: 'before', more: false }))).toEqual([
      'first',
      'next',
      'last',
    ]);
  });

  it('has no header at all when nothing matches on page 1', () => {
    expect(buildLinkHeader('/orders', parameters, 1, 0)).toBeUndefined();
  });

  it('encodes characters that would break the header or the URL', () => {
    expect(buildLinkHeader('/orders', [['startDate', '2026-01-01T00:00:00+09:00']], 1, 1)).toContain(
      'startDate=2026-01-01T00%3A00%3A00%2B09%3A00',
    );
    expect(buildLinkHeader('/orders', [['x', '>; rel="evil"']], 1, 1)).not.toContain('"evil"');
  });
});
