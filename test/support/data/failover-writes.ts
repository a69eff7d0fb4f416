import type { Connection, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { REPLICATED_DATABASE } from '../../../launchers/replication';

/** The concert of a write lost in a failover: the promoted server reuses its order id, so the order is told by this. */
export const LOST_CONCERT = 99;

/** An order as a page lists it, as far as failover tests read it. */
export interface ListedOrder {
  orderId: number;
  concertId: number;
}

/** A paid order placed as the ordering service places it, and the position of its commit that it hands out. */
export async function placePaidOrder(
  connection: Connection,
  member: number,
  concertId = 7,
): Promise<{ orderId: number; gtid: string }> {
  const [placed] = await connection.query<ResultSetHeader>(
    `INSERT INTO ${REPLICATED_DATABASE}.orders (user_id, concert_id, total_price, status, created_at, updated_at)
       VALUES (?, ?, 55000, 'PAYMENT_COMPLETED', UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))`,
    [member, concertId],
  );
  const [[{ gtid }]] = await connection.query<RowDataPacket[]>('SELECT @@last_gtid AS gtid');
  return { orderId: placed.insertId, gtid: String(gtid) };
}

/** Whether a MariaDB server has applied a position, without waiting. */
export async function hasApplied(connection: Connection, position: string): Promise<boolean> {
  const [[{ reached }]] = await connection.query<RowDataPacket[]>('SELECT MASTER_GTID_WAIT(?, 0) = 0 AS reached', [
    position,
  ]);
  return Number(reached) === 1;
}
