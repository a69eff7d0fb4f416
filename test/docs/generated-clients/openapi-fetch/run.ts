/**
 * Runs the program against a service: `run.ts BASE_URL ADMIN_TOKEN USER_TOKEN`. Prints what each call found, as
 * one JSON line, for the test to hold against the service's own answers.
 */
import { exportPaidOrders, invalidParameters, isReady, myOrders, ordersClient } from './program';

async function main(): Promise<void> {
  const [baseUrl, adminToken, userToken] = process.argv.slice(2);
  if (!baseUrl || !adminToken || !userToken) throw new Error('Usage: run.ts BASE_URL ADMIN_TOKEN USER_TOKEN');
  const client = ordersClient(baseUrl);
  const mine = await myOrders(client, userToken);
  const csv = await exportPaidOrders(client, adminToken);
  console.log(
    JSON.stringify({
      ready: await isReady(client),
      totalPages: mine.totalPages,
      orderIds: mine.orders.map((order) => order.orderId),
      firstStatus: mine.firstStatus,
      invalid: await invalidParameters(client, adminToken),
      csvLines: csv.split('\r\n'),
    }),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
