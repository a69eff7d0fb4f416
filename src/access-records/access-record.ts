import { createHash } from 'node:crypto';

export type AccessAction = 'view' | 'download';

/** docs/API.md §21: one administrator's request to the listing or an export, as recorded before its answer. */
export interface AccessRecordFields {
  at: Date;
  identifier: string;
  role: string;
  address: string;
  requestId: string;
  action: AccessAction;
  parameters: Record<string, unknown>;
  status: number;
  problem: string | null;
  /** A page's orders and the distinct `userId`s on it; an export's are in its end. */
  orders: number | null;
  members: number[] | null;
  reason: string | null;
  fields: string[] | null;
  /** The GTID position of the server an export read, as its first batch was read. */
  position: string | null;
}

/** An export's closing figures, added when it ends, naming the record it closes. */
export interface DownloadEndFields {
  at: Date;
  opensChain: string;
  opensSeq: number;
  orders: number;
  bytes: number;
  complete: boolean;
  flagged: boolean;
}

/** Where an entry stands in its instance's chain: each carries its predecessor's hash. */
export interface ChainLink {
  chain: string;
  seq: number;
  prevHash: string;
  hash: string;
}

export type AccessRecord = AccessRecordFields & ChainLink;
export type DownloadEnd = DownloadEndFields & ChainLink;

/** The hash before a chain's first entry. */
export const CHAIN_START = '0'.repeat(64);

/** JSON with object keys sorted, so that equal values have one text whatever built them. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

/** The canonical form of a record: every field in a fixed order, its place in the chain and its predecessor's hash. */
export function recordForm(record: AccessRecordFields & Omit<ChainLink, 'hash'>): string {
  return canonicalJson([
    'record',
    record.chain,
    record.seq,
    record.prevHash,
    record.at.toISOString(),
    record.identifier,
    record.role,
    record.address,
    record.requestId,
    record.action,
    canonicalJson(record.parameters),
    record.status,
    record.problem,
    record.orders,
    record.members,
    record.reason,
    record.fields,
    record.position,
  ]);
}

export function endForm(end: DownloadEndFields & Omit<ChainLink, 'hash'>): string {
  return canonicalJson([
    'end',
    end.chain,
    end.seq,
    end.prevHash,
    end.at.toISOString(),
    end.opensChain,
    end.opensSeq,
    end.orders,
    end.bytes,
    end.complete,
    end.flagged,
  ]);
}

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
