/**
 * A front-end team's use of a client generated from /docs-json (openapi-typescript
 * types, openapi-fetch calls). The test in ../openapi.e2e-spec.ts generates
 * `orders-api.d.ts` from the live document and type-checks this file strictly:
 * if the document drifts from what the service accepts and answers, this no
 * longer compiles.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './orders-api';

type AdminOrder = components['schemas']['AdminOrderDto'];
type UserOrder = components['schemas']['UserOrderDto'];
type Problem = components['schemas']['ProblemDetailsDto'];

// One operation answers pages (JSON) and exports (CSV, NDJSON): each client is typed for the media type it asks
// for, and for the problems every answer may be.
type Problems = 'application/problem+json';
const client = createClient<paths, 'application/json' | Problems>({ baseUrl: 'http://localhost:3000' });
const csvClient = createClient<paths, 'text/csv' | Problems>({ baseUrl: 'http://localhost:3000' });

/** Administrators: every filter, a sort with an upper-case direction, and the next page from the Link header. */
export async function completedOrdersOfConcert(token: string): Promise<{ orders: AdminOrder[]; next?: string }> {
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

/** Members: their own orders; the elements carry no userId. */
export async function myOrders(token: string): Promise<UserOrder[]> {
  const { data, error } = await client.GET('/orders', {
    params: { query: { size: 5, sort: ['createdAt,desc'] } },
    headers: { Authorization: `Bearer ${token}` },
  });
  if (error) throw new Error(describeProblem(error));
  const envelope = data;
  const pages: number = envelope.totalPages;
  const more: boolean = envelope.hasNextPage && envelope.hasPrevious !== undefined;
  void [pages, more];
  return envelope.elements.filter((element): element is UserOrder => !('userId' in element));
}

/**
 * Following a walk: the `next` link's page and continuation, passed on through
 * the typed parameters (a link could also be fetched as it is).
 */
export async function followNext(token: string, nextLink: string): Promise<AdminOrder[]> {
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
export async function pollMyOrders(token: string, etag: string): Promise<UserOrder[] | 'unchanged'> {
  const { data, error, response } = await client.GET('/orders', {
    params: { header: { 'If-None-Match': etag } },
    headers: { Authorization: `Bearer ${token}` },
  });
  if (response.status === 304) return 'unchanged';
  if (error) throw new Error(describeProblem(error));
  return data.elements.filter((element): element is UserOrder => !('userId' in element));
}

/**
 * The back-office's spreadsheet: every paid order of March as CSV, streamed
 * to wherever it is saved. The same filters as pages; `page` and `size` are no
 * parameters of an export.
 */
export async function exportPaidOrdersOfMarch(token: string): Promise<ReadableStream<Uint8Array>> {
  const { data, error } = await csvClient.GET('/orders', {
    params: { query: { orderStatus: '결제 완료', startDate: '2026-03-01', endDate: '2026-03-31' } },
    headers: { Authorization: `Bearer ${token}`, Accept: 'text/csv' },
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
 * A status another service stored is shown as its code (CONTRACT §4): the
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
export async function isReady(): Promise<boolean> {
  const { data } = await client.GET('/health/ready');
  return data?.status === 'ok' && data.details['database']?.status === 'up';
}
