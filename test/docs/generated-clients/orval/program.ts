/**
 * A front-end team's use of orval's fetch client, generated from /docs-json with its defaults
 * (`orval --input … --output generated/orders.ts --client fetch`). The test type-checks it strictly.
 */
import { exportOrdersCsv, listOrders, type ProblemDetailsDto } from './generated/orders';

const authorized = (token: string): RequestInit => ({ headers: { Authorization: `Bearer ${token}` } });

/** A page: its number of pages, and the status of its first element. */
export async function firstPage(token: string): Promise<{ totalPages: number; firstStatus?: string }> {
  const answer = await listOrders({ size: 20, sort: ['createdAt,desc'] }, authorized(token));
  if (answer.status !== 200) throw new Error(describeProblem(answer.status === 304 ? undefined : answer.data));
  return { totalPages: answer.data.totalPages, firstStatus: answer.data.elements[0]?.status };
}

/** A 400 names every invalid parameter in `errors`. */
export async function invalidParameters(token: string): Promise<string[]> {
  const answer = await listOrders({ size: 0 }, authorized(token));
  if (answer.status !== 400) throw new Error(`expected 400, got ${answer.status}`);
  return (answer.data.errors ?? []).map((invalid) => invalid.field);
}

/** Every paid order as CSV. */
export async function exportPaidOrders(token: string): Promise<string> {
  const answer = await exportOrdersCsv(
    { orderStatus: 'PAYMENT_COMPLETED', reason: 'Monthly settlement of paid orders with the organisers' },
    authorized(token),
  );
  if (answer.status !== 200) throw new Error(describeProblem(answer.data));
  return answer.data;
}

function describeProblem(problem: ProblemDetailsDto | undefined): string {
  return problem ? `${problem.status} ${problem.title}: ${problem.detail}` : 'no page';
}
