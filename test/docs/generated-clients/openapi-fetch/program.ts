/**
 * A front-end team's use of a client generated from /docs-json with the tools' defaults: openapi-typescript types,
 * openapi-fetch calls through a plain `createClient<paths>()`. The test (../../generated-clients.e2e-spec.ts)
 * generates `generated/orders-api.d.ts` from the live document, type-checks this file strictly, and runs it
 * (./run.ts) against the service: if the document drifts from what the service accepts and answers, this no longer
 * compiles, or no longer works.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './generated/orders-api';

type AdminOrder = components['schemas']['AdminOrderDto'];
type UserOrder = components['schemas']['UserOrderDto'];
type Problem = components['schemas']['ProblemDetailsDto'];

export const ordersClient = (baseUrl: string) => createClient<paths>({ baseUrl });
type Client = ReturnType<typeof ordersClient>;

/** Administrators: every filter, a sort with an upper-case direction, and the next page from the Link header. */
export async function completedOrdersOfConcert(
  client: Client,
  token: string,
): Promise<{ orders: AdminOrder[]; next?: string }> {
  const { data, error, response } = await client.GET('/orders', {
    params: {
      query: {
        page: 2,
        size: 50,
        sort: ['totalPrice,DESC', 'createdAt'],
        userId: 42,
        consertId: 7,
        orderStatus: '결제 완료',
        startDate: '2026-03-01',
        endDate: '2026-03-31T23:59:59+09:00',
      },
    },
    headers: { Authorization: `Bearer ${token}` },
  });
  if (error) throw new Error(describeProblem(error));
  const orders = data.elements.filter((element): element is AdminOrder => 'userId' in element);
  const next = /<([^>]+)>;\s*rel="next"/.exec(response.headers.get('Link') ?? '')?.[1];
  return next === undefined ? { orders } : { orders, next };
}

/** Members: their own orders; the elements carry no userId. The page's totals, and the first element's status. */
export async function myOrders(
  client: Client,
  token: string,
): Promise<{ orders: UserOrder[]; totalPages: number; firstStatus?: string }> {
  const { data, error } = await client.GET('/orders', {
    params: { query: { size: 5, sort: ['createdAt,desc'] } },
    headers: { Authorization: `Bearer ${token}` },
  });
  if (error) throw new Error(describeProblem(error));
  const orders = data.elements.filter((element): element is UserOrder => !('userId' in element));
  const firstStatus = data.elements[0]?.status;
  return firstStatus === undefined
    ? { orders, totalPages: data.totalPages }
    : { orders, totalPages: data.totalPages, firstStatus };
}

/** A 400 names every invalid parameter in `errors`. */
export async function invalidParameters(client: Client, token: string): Promise<string[]> {
  const { data, error } = await client.GET('/orders', {
    params: { query: { size: 0, sort: ['price'] } },
    headers: { Authorization: `Bearer ${token}` },
  });
  if (data) throw new Error('an invalid size and sort are never answered with a page');
  return (error.errors ?? []).map((invalid) => invalid.field);
}

/**
 * Following a walk: the `next` link's page and continuation, passed on through
 * the typed parameters (a link could also be fetched as it is).
 */
export async function followNext(client: Client, token: string, nextLink: string): Promise<AdminOrder[]> {
  const link = new URL(nextLink, 'http://localhost:3000');
  const after = link.searchParams.get('after');
  if (after === null) throw new Error('a next link always carries its continuation');
  const { data, error } = await client.GET('/orders', {
    params: {
      query: {
        page: Number(link.searchParams.get('page')),
        size: Number(link.searchParams.get('size')),
        sort: link.searchParams.getAll('sort'),
        after,
      },
    },
    headers: { Authorization: `Bearer ${token}` },
  });
  if (error) throw new Error(describeProblem(error));
  return data.elements.filter((element): element is AdminOrder => 'userId' in element);
}

/** Polling: the page's ETag sent back; `unchanged` when the service answers 304. */
export async function pollMyOrders(client: Client, token: string, etag: string): Promise<UserOrder[] | 'unchanged'> {
  const { data, error, response } = await client.GET('/orders', {
    params: { header: { 'If-None-Match': etag } },
    headers: { Authorization: `Bearer ${token}` },
  });
  if (response.status === 304) return 'unchanged';
  if (error) throw new Error(describeProblem(error));
  return data.elements.filter((element): element is UserOrder => !('userId' in element));
}

/**
 * The back-office's spreadsheet: every paid order as CSV, an operation of its own. The same filters as pages;
 * `page` and `size` are no parameters of an export.
 */
export async function exportPaidOrders(client: Client, token: string): Promise<string> {
  const { data, error } = await client.GET('/orders/export.csv', {
    params: {
      query: {
        orderStatus: '결제 완료',
        sort: ['totalPrice,desc'],
        reason: 'Monthly settlement of paid orders with the organisers',
      },
    },
    headers: { Authorization: `Bearer ${token}` },
    parseAs: 'text',
  });
  if (error) throw new Error(describeProblem(error));
  return data;
}

/** The same as NDJSON, streamed to wherever it goes. */
export async function streamEveryOrder(client: Client, token: string): Promise<ReadableStream<Uint8Array>> {
  const { data, error } = await client.GET('/orders/export.ndjson', {
    params: { query: { reason: 'Monthly settlement of paid orders with the organisers' } },
    headers: { Authorization: `Bearer ${token}` },
    parseAs: 'stream',
  });
  if (error) throw new Error(describeProblem(error));
  if (!data) throw new Error('an export always has a body');
  return data;
}

/** A 400 lists every invalid parameter by name. */
export function describeProblem(problem: Problem): string {
  const fields = (problem.errors ?? []).map((error) => `${error.field}: ${error.message}`);
  return [`${problem.status} ${problem.title}: ${problem.detail} (${problem.instance})`, ...fields].join('\n');
}

/**
 * A status another service stored is shown as its code (docs/API.md §4): the
 * generated type must admit it, or this assignment does not compile.
 */
export const statusStoredElsewhere: AdminOrder['status'] = 'ON_HOLD';

/** The known labels, and anything else shown as it came. */
export function statusText(order: UserOrder | AdminOrder): string {
  switch (order.status) {
    case '결제 완료':
      return 'paid';
    case '결제 대기':
      return 'awaiting payment';
    default:
      return order.status;
  }
}

/** The probes need no token. */
export async function isReady(client: Client): Promise<boolean> {
  const { data } = await client.GET('/health/ready');
  return data?.status === 'ok' && data.details['database']?.status === 'up';
}
