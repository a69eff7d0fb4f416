import type { DataSource } from 'typeorm';
import { addMonths, monthOf, monthsBetween } from '../database/monthly-partitions';
import { sqlTime } from './access-record-store';
import type { StoredEntry, StoredSeal } from './chain-verification';

type Row = Record<string, unknown>;

/** A DATETIME(3) as MySQL's driver hands it (a Date) or the embedded database keeps it (text, UTC). */
const timeOf = (value: unknown): Date =>
  value instanceof Date ? value : new Date(`${String(value).replace(' ', 'T')}Z`);
const orNull = <T>(value: unknown, as: (value: unknown) => T): T | null =>
  value === null || value === undefined ? null : as(value);

/** What records and ends share: their row, their place in a chain, and when they were made. */
const placeOf = (row: Row) => ({
  id: Number(row.id),
  chain: String(row.chain),
  seq: Number(row.seq),
  prevHash: String(row.prev_hash),
  hash: String(row.hash),
  at: timeOf(row.recorded_at),
});

function recordOf(row: Row): StoredEntry {
  return {
    table: 'record',
    ...placeOf(row),
    identifier: String(row.identifier),
    role: String(row.role),
    address: String(row.address),
    requestId: String(row.request_id),
    action: row.action as 'view' | 'download',
    parameters: JSON.parse(String(row.parameters)) as Record<string, unknown>,
    status: Number(row.status),
    problem: orNull(row.problem, String),
    orders: orNull(row.orders, Number),
    members: orNull(row.members, (text) => JSON.parse(String(text)) as number[]),
    reason: orNull(row.reason, String),
    fields: orNull(row.fields, (text) => String(text).split(',')),
    position: orNull(row.position, String),
  };
}

function endOf(row: Row): StoredEntry {
  return {
    table: 'end',
    ...placeOf(row),
    opensChain: String(row.opens_chain),
    opensSeq: Number(row.opens_seq),
    orders: Number(row.orders),
    bytes: Number(row.bytes),
    complete: Number(row.complete) === 1,
    flagged: Number(row.flagged) === 1,
  };
}

function sealOf(row: Row): StoredSeal {
  return {
    id: Number(row.id),
    chain: String(row.chain),
    month: String(row.month),
    seq: Number(row.seq),
    hash: String(row.hash),
    at: timeOf(row.sealed_at),
    final: Number(row.final) === 1,
    others: JSON.parse(String(row.others)) as Record<string, number>,
    keyId: String(row.key_id),
    signature: String(row.signature),
  };
}

/** A record as a reviewer reads it: its export's end folded in (docs/API.md §21, `list`). */
export type ListedRecord = Extract<StoredEntry, { table: 'record' }> & {
  bytes: number | null;
  complete: boolean | null;
  flagged: boolean;
};

/** Reads the records, their ends and the seals with the service's own account, for verification and review. */
export class AccessRecordReader {
  constructor(private readonly dataSource: DataSource) {}

  /** The UTC months that hold records, oldest first. */
  async months(): Promise<string[]> {
    const [row]: Row[] = await this.dataSource.query(
      'SELECT MIN(recorded_at) AS first, MAX(recorded_at) AS last FROM access_records',
    );
    if (!row || row.first === null || row.first === undefined) return [];
    return monthsBetween(monthOf(timeOf(row.first)), monthOf(timeOf(row.last)));
  }

  /** A month's records and ends: its chains whole. */
  async entries(month: string): Promise<StoredEntry[]> {
    const range = [`${month}-01 00:00:00`, `${addMonths(month, 1)}-01 00:00:00`];
    const where = 'WHERE recorded_at >= ? AND recorded_at < ?';
    const records: Row[] = await this.dataSource.query(`SELECT * FROM access_records ${where}`, range);
    const ends: Row[] = await this.dataSource.query(`SELECT * FROM access_record_ends ${where}`, range);
    return [...records.map(recordOf), ...ends.map(endOf)];
  }

  async seals(): Promise<StoredSeal[]> {
    const rows: Row[] = await this.dataSource.query('SELECT * FROM access_record_seals ORDER BY id');
    return rows.map(sealOf);
  }

  /** The records made from `since` until before `until`, oldest first, each with its export's end. */
  async list(since: Date, until: Date, identifier?: string): Promise<ListedRecord[]> {
    const rows: Row[] = await this.dataSource.query(
      'SELECT * FROM access_records WHERE recorded_at >= ? AND recorded_at < ?' +
        (identifier === undefined ? '' : ' AND identifier = ?') +
        ' ORDER BY recorded_at, id',
      [sqlTime(since), sqlTime(until), ...(identifier === undefined ? [] : [identifier])],
    );
    const records = rows.map(recordOf) as Extract<StoredEntry, { table: 'record' }>[];
    const ends = new Map<string, Extract<StoredEntry, { table: 'end' }>>();
    const downloads = records.filter(({ action }) => action === 'download');
    if (downloads.length > 0) {
      const endRows: Row[] = await this.dataSource.query('SELECT * FROM access_record_ends WHERE recorded_at >= ?', [
        sqlTime(since),
      ]);
      for (const end of endRows.map(endOf) as Extract<StoredEntry, { table: 'end' }>[]) {
        ends.set(`${end.opensChain}#${end.opensSeq}`, end);
      }
    }
    return records.map((record) => {
      const end = ends.get(`${record.chain}#${record.seq}`);
      return {
        ...record,
        orders: end?.orders ?? record.orders,
        bytes: end?.bytes ?? null,
        // A download answered with its data and no end yet is running, or its instance stopped before writing it.
        complete: record.action === 'download' && record.status < 400 ? (end?.complete ?? false) : null,
        flagged: end?.flagged ?? false,
      };
    });
  }
}
