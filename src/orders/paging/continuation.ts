import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { SortField, SortKey } from '../query/sort';

/** `after` continues a walk forwards from a page's last element (`next`), `before` backwards from its first (`prev`). */
export const SEEK_DIRECTIONS = ['after', 'before'] as const;
export type SeekDirection = (typeof SEEK_DIRECTIONS)[number];

/** A sort key's value as a walk compares it: ids, prices and times (epoch milliseconds) as numbers, the status code as text. */
export type SortValue = number | string;

/** Where a followed page starts, and what the walk it belongs to includes (docs/API.md §13). */
export interface Seek {
  direction: SeekDirection;
  /** The boundary element's value of each sort key, in the sort's order, the appended `orderId` included. */
  key: SortValue[];
  /** The highest order id when the walk began: orders placed since then stay out of it. */
  bound: number;
}

const TEXT_FIELDS: ReadonlySet<SortField> = new Set(['status']);
/** 128 bits of HMAC-SHA256: forging one is out of reach, and links stay short. */
const MAC_BYTES = 16;
/** Changes when the payload's layout does, so that a link written by an older build is refused, not misread. */
const FORMAT = '1';

const isValueOf = (field: SortField, value: unknown): value is SortValue =>
  TEXT_FIELDS.has(field) ? typeof value === 'string' : typeof value === 'number' && Number.isFinite(value);

/**
 * Writes and reads the opaque `after`/`before` parameters. A token is the
 * walk's bound and boundary key, base64url JSON, followed by an HMAC over the
 * payload, the direction, the page the link targets and the request's scope
 * (caller, filters, sort and size): a token that was altered, or is sent with
 * any of those changed, fails the check. It is not encrypted; it holds the
 * values of an element the caller was just shown.
 */
export class ContinuationTokens {
  /** Imported once: given the text, every HMAC would import the key again. */
  private readonly key: KeyObject;

  constructor(secret: string) {
    this.key = createSecretKey(Buffer.from(secret, 'utf8'));
  }

  write(seek: Seek, page: number, scope: string): string {
    const payload = Buffer.from(JSON.stringify([seek.bound, ...seek.key])).toString('base64url');
    return `${payload}.${this.mac(payload, seek.direction, page, scope).toString('base64url')}`;
  }

  /** The seek a token describes, or undefined when the service did not write it for exactly this request. */
  read(token: string, direction: SeekDirection, page: number, scope: string, sort: SortKey[]): Seek | undefined {
    const [payload, mac, ...rest] = token.split('.');
    if (!payload || !mac || rest.length > 0) return undefined;
    const expected = this.mac(payload, direction, page, scope);
    const given = Buffer.from(mac, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    const values: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    if (!Array.isArray(values) || values.length !== sort.length + 1) return undefined;
    const [bound, ...key] = values as unknown[];
    if (!Number.isSafeInteger(bound) || !sort.every(({ field }, index) => isValueOf(field, key[index]))) {
      return undefined;
    }
    return { direction, key: key as SortValue[], bound: bound as number };
  }

  private mac(payload: string, direction: SeekDirection, page: number, scope: string): Buffer {
    return createHmac('sha256', this.key)
      .update(`${FORMAT}\n${direction}\n${page}\n${scope}\n${payload}`)
      .digest()
      .subarray(0, MAC_BYTES);
  }
}
