import { createConnection, type Connection, type ResultSetHeader, type RowDataPacket } from 'mysql2/promise';
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

/** What a replica's IO thread has received from its primary (MariaDB's `Gtid_IO_Pos`), applied or not. */
export async function receivedBy(connection: Connection): Promise<string> {
  const [[status]] = await connection.query<RowDataPacket[]>('SHOW SLAVE STATUS');
  return String(status?.Gtid_IO_Pos ?? '');
}

/** Whether one GTID position (one domain, as the suites' servers write) holds everything of another. */
export function holdsAll(position: string, other: string): boolean {
  const sequenceOf = (text: string) => Number(text.split('-')[2] ?? 0);
  return sequenceOf(position) >= sequenceOf(other);
}

/** A write of the continuous writer: whose order, the concert that tells it apart, and when its commit was acknowledged. */
export interface AcknowledgedWrite {
  member: number;
  concertId: number;
  ackedAt: number;
}

/** A member's page as a failover test reads it: when it was sent, how it was answered, and the concerts it listed. */
export interface ReadPage {
  member: number;
  sentAt: number;
  status: number;
  stale: boolean;
  concertIds: number[];
}

/** The writer's concerts start past the dataset's and the lost write's. */
const WRITER_CONCERT = 100_000;

/**
 * An ordering service writing throughout a failover: a paid order every `everyMs` for each member in turn, on the
 * server `portNow` names at that moment; a write that fails (no server, or a read-only one) is retried on the next
 * turn, as a checkout would be.
 */
export function startWriter(portNow: () => number, members: number[], everyMs = 50) {
  const writes: AcknowledgedWrite[] = [];
  let running = true;
  const done = (async () => {
    let connection: Connection | undefined;
    for (let turn = 0; running; turn += 1) {
      await new Promise((resolve) => setTimeout(resolve, everyMs));
      try {
        connection ??= await createConnection({ host: '127.0.0.1', port: portNow(), user: 'root' });
        const member = members[turn % members.length];
        await placePaidOrder(connection, member, WRITER_CONCERT + turn);
        writes.push({ member, concertId: WRITER_CONCERT + turn, ackedAt: Date.now() });
      } catch {
        connection?.destroy();
        connection = undefined;
      }
    }
    connection?.destroy();
  })();
  return {
    /** The writes acknowledged so far. */
    acknowledged: () => writes.length,
    stop: async (): Promise<AcknowledgedWrite[]> => {
      running = false;
      await done;
      return writes;
    },
  };
}

/** The writer's concerts that `server` holds: the writes that survived, once the failover is over. */
export async function survivingConcerts(server: Connection, writes: AcknowledgedWrite[]): Promise<Set<number>> {
  const [rows] = await server.query<RowDataPacket[]>(
    `SELECT concert_id AS concertId FROM ${REPLICATED_DATABASE}.orders WHERE concert_id >= ?`,
    [WRITER_CONCERT],
  );
  const held = new Set(rows.map((row) => Number(row.concertId)));
  return new Set(writes.filter((write) => held.has(write.concertId)).map((write) => write.concertId));
}

/**
 * docs/API.md §19 and §20 over a run: pages served as current (200 without Data-Staleness) that miss a surviving
 * write acknowledged before they were sent, and pages sent after `promotedAt` served as current with a lost write.
 */
export function judgePages(pages: ReadPage[], writes: AcknowledgedWrite[], survivors: Set<number>, promotedAt: number) {
  const current = pages.filter((page) => page.status === 200 && !page.stale);
  const lost = new Set(writes.filter((write) => !survivors.has(write.concertId)).map((write) => write.concertId));
  return {
    current: current.length,
    silentlyStale: current.filter((page) =>
      writes.some(
        (write) =>
          write.member === page.member &&
          write.ackedAt < page.sentAt &&
          survivors.has(write.concertId) &&
          !page.concertIds.includes(write.concertId),
      ),
    ),
    deposedAsCurrent: current.filter(
      (page) => page.sentAt >= promotedAt && page.concertIds.some((concertId) => lost.has(concertId)),
    ),
    lost: lost.size,
  };
}
