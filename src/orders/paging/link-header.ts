import type { CursorDirection } from '../model';

/** Commas stay readable (`sort=createdAt,desc`); they are legal in a query component (RFC 3986 §3.4). */
const encode = (text: string): string => encodeURIComponent(text).replace(/%2C/g, ',');

/** A followed page's walk: the direction it was followed in, and whether it has orders past this page that way. */
export interface WalkProgress {
  direction: CursorDirection;
  more: boolean;
}

/** A link of a page: its relation, the page it targets, and the direction of the walk it continues, if it does. */
export interface PageLink {
  rel: 'first' | 'prev' | 'next' | 'last';
  page: number;
  direction?: CursorDirection;
}

/** A page's links: `first` and `last` when there is a page, `prev` and `next` where they exist; on a followed page,
 * the link on in the walk's direction only while the walk has orders past it, which the totals cannot tell. */
export function pageLinks(currentPage: number, totalPages: number, walk?: WalkProgress): PageLink[] {
  const links: PageLink[] = [];
  if (totalPages >= 1) links.push({ rel: 'first', page: 1 });
  if (currentPage > 1 && (walk?.direction !== 'before' || walk.more)) {
    links.push({ rel: 'prev', page: currentPage - 1, direction: 'before' });
  }
  if (walk?.direction === 'after' ? walk.more : currentPage < totalPages) {
    links.push({ rel: 'next', page: currentPage + 1, direction: 'after' });
  }
  if (totalPages >= 1) links.push({ rel: 'last', page: totalPages });
  return links;
}

/** The RFC 8288 `Link` header of the links: each target repeats the request's parameters with `page` replaced, and
 * carries its continuation token when it has one. */
export function linkHeader(
  path: string,
  parameters: ReadonlyArray<readonly [string, string]>,
  links: ReadonlyArray<PageLink & { token?: string }>,
): string | undefined {
  if (links.length === 0) return undefined;
  const rest = parameters.map(([name, value]) => `&${encode(name)}=${encode(value)}`).join('');
  return links
    .map(
      ({ rel, page, direction, token }) =>
        `<${path}?page=${page}${rest}${direction && token ? `&${direction}=${token}` : ''}>; rel="${rel}"`,
    )
    .join(', ');
}
