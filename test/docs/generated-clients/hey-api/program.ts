/**
 * A front-end team's use of @hey-api/openapi-ts, generated from /docs-json with its defaults
 * (`openapi-ts -i … -o generated`: types, SDK and its fetch client). The test type-checks it strictly.
 */
import { client } from './generated/client.gen.js';
import { exportOrdersCsv, listOrders } from './generated/sdk.gen.js';

client.setConfig({ baseUrl: 'http://localhost:3000' });

const authorized = (token: string) => ({ Authorization: `Bearer ${token}` });

/** A page: its number of pages, and the status of its first element. */
export async function firstPage(token: string): Promise<{ totalPages: number; firstStatus?: string }> {
  const { data, error } = await listOrders({
    query: { size: 20, sort: ['createdAt,desc'] },
    headers: authorized(token),
  });
  if (error) throw new Error(`${error.status} ${error.title}: ${error.detail}`);
  if (!data) throw new Error('a page always has a body');
  return { totalPages: data.totalPages, firstStatus: data.elements[0]?.status };
}

/** A 400 names every invalid parameter in `errors`. */
export async function invalidParameters(token: string): Promise<string[]> {
  const { error } = await listOrders({ query: { size: 0 }, headers: authorized(token) });
  if (!error) throw new Error('size=0 is always refused');
  return (error.errors ?? []).map((invalid) => invalid.field);
}

/** Every paid order as CSV. */
export async function exportPaidOrders(token: string): Promise<string> {
  const { data, error } = await exportOrdersCsv({
    query: { orderStatus: 'PAYMENT_COMPLETED', reason: 'Monthly settlement of paid orders with the organisers' },
    headers: authorized(token),
    parseAs: 'text',
  });
  if (error) throw new Error(`${error.status} ${error.title}: ${error.detail}`);
  return data ?? '';
}
