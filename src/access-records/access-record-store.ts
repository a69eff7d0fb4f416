import type { DataSource } from 'typeorm';
import { canonicalJson, type AccessRecord, type DownloadEnd } from './access-record';
import type { Seal } from './seal';

/** What the records' account may do besides INSERT: `undefined` where it cannot be told. */
export interface AccountReach {
  update: boolean | undefined;
  delete: boolean | undefined;
}

/** A commit not confirmed within its time; its outcome is unknown. */
export class NotInTimeError extends Error {}

/** Whether a failure was the deadline's (ours, or the driver's statement timeout) rather than the database's. */
export const timedOut = (error: unknown): boolean =>
  error instanceof NotInTimeError || (error as { code?: string } | undefined)?.code === 'PROTOCOL_SEQUENCE_TIMEOUT';

/** Where records are committed: the primary through the records' own account, or the embedded database. */
export interface AccessRecordStore {
  insert(records: readonly AccessRecord[], ends: readonly DownloadEnd[], timeoutMs: number): Promise<void>;
  insertSeal(seal: Seal, timeoutMs: number): Promise<void>;
  accountReach(): Promise<AccountReach>;
  close(): Promise<void>;
}

const RECORD_COLUMNS =
  'recorded_at, chain, seq, prev_hash, hash, identifier, role, address, request_id, action, parameters, status, ' +
  'problem, orders, members, reason, fields, position';
const END_COLUMNS =
  'recorded_at, chain, seq, prev_hash, hash, opens_chain, opens_seq, orders, bytes, complete, flagged';
const SEAL_COLUMNS = 'sealed_at, chain, month, seq, hash, final, others, key_id, signature';

const placeholders = (columns: string, rows: number): string => {
  const row = `(${columns.split(',').fill('?').join(', ')})`;
  return Array.from({ length: rows }, () => row).join(', ');
};

/** UTC to the millisecond, as DATETIME(3) and the embedded database's text both take it. */
export const sqlTime = (at: Date): string => at.toISOString().replace('T', ' ').replace('Z', '');

const recordValues = (record: AccessRecord): unknown[] => [
  sqlTime(record.at),
  record.chain,
  record.seq,
  record.prevHash,
  record.hash,
  record.identifier,
  record.role,
  record.address,
  record.requestId,
  record.action,
  canonicalJson(record.parameters),
  record.status,
  record.problem,
  record.orders,
  record.members && JSON.stringify(record.members),
  record.reason,
  record.fields?.join(',') ?? null,
  record.position,
];

const endValues = (end: DownloadEnd): unknown[] => [
  sqlTime(end.at),
  end.chain,
  end.seq,
  end.prevHash,
  end.hash,
  end.opensChain,
  end.opensSeq,
  end.orders,
  end.bytes,
  end.complete ? 1 : 0,
  end.flagged ? 1 : 0,
];

/** The statements of one batch: its records, then its ends, each one multi-row INSERT. */
export function statementsOf(records: readonly AccessRecord[], ends: readonly DownloadEnd[]): [string, unknown[]][] {
  const statements: [string, unknown[]][] = [];
  if (records.length > 0) {
    statements.push([
      `INSERT INTO access_records (${RECORD_COLUMNS}) VALUES ${placeholders(RECORD_COLUMNS, records.length)}`,
      records.flatMap(recordValues),
    ]);
  }
  if (ends.length > 0) {
    statements.push([
      `INSERT INTO access_record_ends (${END_COLUMNS}) VALUES ${placeholders(END_COLUMNS, ends.length)}`,
      ends.flatMap(endValues),
    ]);
  }
  return statements;
}

export const sealStatement = (seal: Seal): [string, unknown[]] => [
  `INSERT INTO access_record_seals (${SEAL_COLUMNS}) VALUES ${placeholders(SEAL_COLUMNS, 1)}`,
  [
    sqlTime(seal.at),
    seal.chain,
    seal.month,
    seal.seq,
    seal.hash,
    seal.final ? 1 : 0,
    JSON.stringify(seal.others),
    seal.keyId,
    seal.signature,
  ],
];

/** docs/API.md §21: in the embedded database's own file, with no account of its own to check. */
export class EmbeddedAccessRecordStore implements AccessRecordStore {
  constructor(private readonly dataSource: DataSource) {}

  async insert(records: readonly AccessRecord[], ends: readonly DownloadEnd[]): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      for (const [sql, values] of statementsOf(records, ends)) await manager.query(sql, values);
    });
  }

  async insertSeal(seal: Seal): Promise<void> {
    await this.dataSource.query(...sealStatement(seal));
  }

  accountReach(): Promise<AccountReach> {
    return Promise.resolve({ update: undefined, delete: undefined });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
