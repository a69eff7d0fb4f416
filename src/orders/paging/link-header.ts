import type { CursorDirection } from '../model';

/** Commas stay readable (`sort=createdAt,desc`); they are legal in a query component (RFC 3986 §3.4). */
const encode = (text: string): string => encodeURIComponent(text).replace(/%2C/g, ',');

/** The continuation (`after` or `before`) a `next` or `prev` link carries to the page it targets, if any. */
export type ContinuationWriter = (direction: CursorDirection, targetPage: number) => string | undefined;

/** A followed page's walk: the direction it was followed in, and whether it has orders past this page that way. */
export interface WalkProgress {
  direction: CursorDirection;
  more: boolean;
}

/**
 * The RFC 8288 `Link` header of docs/API.md §4: `first` and `last` when there is
 * a page at all, `prev` and `next` where they exist. Each target repeats the
 * request's parameters with `page` replaced; `next` and `prev` also carry the
 * continuation of the walk (docs/API.md §13), `first` and `last` never do. On a
 * followed page, the link that goes on in the walk's direction is there when
 * the walk has orders past the page, which the totals alone cannot tell once
 * orders moved across the walk or were deleted behind it.
 * Undefined when there is no link.
 */
export function buildLinkHeader(
  path: string,
  parameters: ReadonlyArray<readonly [string, string]>,
  currentPage: number,
  totalPages: number,
  continuation?: ContinuationWriter,
  walk?: WalkProgress,
): string | undefined {
  const rest = parameters.map(([name, value]) => `&${encode(name)}=${encode(value)}`).join('');
  const link = (page: number, rel: string, direction?: CursorDirection): string => {
    const token = direction && continuation?.(direction, page);
    return `<${path}?page=${page}${rest}${token ? `&${direction}=${token}` : ''}>; rel="${rel}"`;
  };
  const hasPrev = currentPage > 1 && (walk?.direction !== 'before' || walk.more);
  const hasNext = walk?.direction === 'after' ? walk.more : currentPage < totalPages;
  const links: string[] = [];
  if (totalPages >= 1) links.push(link(1, 'first'));
  if (hasPrev) links.push(link(currentPage - 1, 'prev', 'before'));
  if (hasNext) links.push(link(currentPage + 1, 'next', 'after'));
  if (totalPages >= 1) links.push(link(totalPages, 'last'));
  return links.length > 0 ? links.join(', ') : undefined;
}
