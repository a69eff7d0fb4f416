import type { DataSource, EntityManager } from 'typeorm';
import { toStoredDateTime } from '../../common/time/local-time';
import type { GeneratedOrder } from './order-generator';

/** Rows per INSERT: well inside SQLite's and MySQL's limits on bound parameters. */
const BATCH_SIZE = 1000;

const placeholders = (rows: number, columns: number): string =>
  Array.from({ length: rows }, () => `(${Array.from({ length: columns }, () => '?').join(', ')})`).join(', ');

async function insertBatch(manager: EntityManager, firstId: number, orders: GeneratedOrder[]): Promise<void> {
  const orderValues = orders.flatMap((order, index) => [
    firstId + index,
    order.userId,
    order.concertId,
    order.totalPrice,
    order.status,
    toStoredDateTime(order.createdAtMs),
    toStoredDateTime(order.updatedAtMs),
  ]);
  await manager.query(
    `INSERT INTO orders (id, user_id, concert_id, total_price, status, created_at, updated_at) VALUES ${placeholders(orders.length, 7)}`,
    orderValues,
  );
  const seatValues = orders.flatMap((order, index) =>
    order.seats.flatMap((seat) => [firstId + index, seat.seatPriceId, seat.price]),
  );
  if (seatValues.length > 0) {
    await manager.query(
      `INSERT INTO order_seats (order_id, seat_price_id, price) VALUES ${placeholders(seatValues.length / 3, 3)}`,
      seatValues,
    );
  }
}

/** Writes orders with their seats in multi-row INSERTs, one transaction per batch (so a million orders never sit
 * in one undo log), giving them ids after the highest present. */
export async function writeOrders(
  dataSource: DataSource,
  orders: Iterable<GeneratedOrder>,
  onBatch?: (written: number) => void,
): Promise<number[]> {
  const [{ maxId }] = await dataSource.query<Array<{ maxId: number | string | null }>>(
    'SELECT MAX(id) AS maxId FROM orders',
  );
  let nextId = Number(maxId ?? 0) + 1;
  const ids: number[] = [];
  let batch: GeneratedOrder[] = [];
  const flush = async (): Promise<void> => {
    const firstId = nextId;
    const rows = batch;
    await dataSource.transaction((manager) => insertBatch(manager, firstId, rows));
    for (let index = 0; index < rows.length; index += 1) ids.push(firstId + index);
    nextId += rows.length;
    batch = [];
    onBatch?.(ids.length);
  };
  for (const order of orders) {
    batch.push(order);
    if (batch.length === BATCH_SIZE) await flush();
  }
  if (batch.length > 0) await flush();
  return ids;
}
