import type { ListingVariant } from '../listing-variant';
import type { OrderFilters, KeysetCursor, SortKey } from '../model';

/** A validated listing request, independent of how it was transported. */
export interface ListOrdersQuery {
  page: number;
  size: number;
  sort: SortKey[];
  /** The orders read: the query's filters for an administrator, a member's own orders for a member. */
  filters: OrderFilters;
  /** Who the listing is for, resolved once from the caller: everything that differs between member and administrator. */
  variant: ListingVariant;
  /** Where a followed link continues its walk; absent, the page is read by offset. */
  cursor?: KeysetCursor;
  /** What a continuation is bound to: the variant's walk owner (a member's id), the filters, the sort and the size. */
  walkScope: string;
  /** The request's parameters as sent, but `page` and the continuations, for the `Link` header. */
  echoedParameters: Array<[name: string, value: string]>;
  /** The CSV export only: a UTF-8 byte-order mark first, for Excel (`bom=true`). */
  byteOrderMark?: boolean;
  /** An export: why it is downloaded, as given; required of an administrator. */
  reason?: string;
  /** An export: the element's fields it hands over, in the element's order; every field when absent. */
  fields?: readonly string[];
  /** A writer's position the answer must reflect (`Read-After-Gtid`), as sent. */
  writerPosition?: string;
}
