/** Commas stay readable (`sort=createdAt,desc`); they are legal in a query component (RFC 3986 §3.4). */
const encode = (text: string): string => encodeURIComponent(text).replace(/%2C/g, ',');

/**
 * The RFC 8288 `Link` header of CONTRACT §4: `first` and `last` when there is
 * a page at all, `prev` and `next` where they exist. Each target repeats the
 * request's parameters with `page` replaced. Undefined when there is no link.
 */
export function buildLinkHeader(
  path: string,
  parameters: ReadonlyArray<readonly [string, string]>,
  currentPage: number,
  totalPages: number,
): string | undefined {
  const rest = parameters.map(([name, value]) => `&${encode(name)}=${encode(value)}`).join('');
  const link = (page: number, rel: string): string => `<${path}?page=${page}${rest}>; rel="${rel}"`;
  const links: string[] = [];
  if (totalPages >= 1) links.push(link(1, 'first'));
  if (currentPage > 1) links.push(link(currentPage - 1, 'prev'));
  if (currentPage < totalPages) links.push(link(currentPage + 1, 'next'));
  if (totalPages >= 1) links.push(link(totalPages, 'last'));
  return links.length > 0 ? links.join(', ') : undefined;
}
