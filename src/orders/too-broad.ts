import type { OrderFilters, SortKey } from './model';

/** What a refused listing is told: which sort could not be served over which orders, and each way to make it
 * answerable. */
export function tooBroadDetail(filters: OrderFilters, sort: readonly SortKey[]): string {
  const { field } = sort[0];
  if (filters.userId !== undefined || filters.concertId !== undefined) {
    const whose = filters.userId !== undefined ? "a member's" : "a concert's";
    return (
      `Listing ${whose} orders needs an index led by that filter, and no server serving now holds one. ` +
      'Try again once a server that holds the listing indexes serves.'
    );
  }
  const scope =
    filters.status !== undefined || filters.createdFrom !== undefined || filters.createdBefore !== undefined
      ? 'the orders these filters select'
      : 'all orders';
  return (
    `Sorting ${scope} by ${field} is more than the servers serving now can answer in time: it needs a read ` +
    'replica holding the listing indexes, and none is serving. Add a userId or consertId filter, sort by ' +
    'createdAt or orderId, or try again once a replica serves.'
  );
}

/** What a listing is told whose filters select more orders than a server sorts within the deadline, in a sort no
 * index reads in order across them: how many, the most, and the ways to narrow it. */
export function tooManyToSortDetail(sort: readonly SortKey[], read: number, most: number): string {
  const count = (value: number) => value.toLocaleString('en-US');
  return (
    `Sorting by ${sort[0].field} with these filters reads ${count(read)} orders for every page, more ` +
    `than a server sorts in time (at most ${count(most)}). Narrow the date range, add a userId or consertId ` +
    'filter, or sort by createdAt or orderId.'
  );
}
