import { createCipheriv, createDecipheriv, createHmac, createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';
import type { KeysetCursor, CursorDirection, SortField, SortKey, SortValue } from '../model';

const TEXT_FIELDS: ReadonlySet<SortField> = new Set(['status']);
/** AES-256-GCM: 96-bit nonces, 128-bit tags. */
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** Payloads are padded to a multiple of this, so that a token's length tells nothing of the sizes of its values. */
const PADDED_TO = 48;
/** Changes when the payload's layout does, so that a link written by an older build is refused, not misread. */
const FORMAT = '2';

const isValueOf = (field: SortField, value: unknown): value is SortValue =>
  TEXT_FIELDS.has(field) ? typeof value === 'string' : typeof value === 'number' && Number.isFinite(value);

/** A key of its own for each use of the one secret (RFC 5869). */
const derivedKey = (secret: string, use: string): KeyObject =>
  createSecretKey(Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), use, 32)));

/** Writes and reads the opaque `after`/`before` parameters. */
export class ContinuationTokens {
  /** Imported once: given the text, every token would derive its keys again. */
  private readonly encryption: KeyObject;
  private readonly nonces: KeyObject;

  constructor(secret: string) {
    this.encryption = derivedKey(secret, 'orders page links: encryption');
    this.nonces = derivedKey(secret, 'orders page links: nonces');
  }

  write(cursor: KeysetCursor, page: number, scope: string): string {
    const payload = Buffer.from(JSON.stringify([cursor.bound, ...cursor.key]), 'utf8');
    // JSON ends where the padding's spaces begin, and reads past them.
    const padded = Buffer.alloc(Math.ceil(payload.length / PADDED_TO) * PADDED_TO, ' ');
    payload.copy(padded);
    const context = this.context(cursor.direction, page, scope);
    const nonce = createHmac('sha256', this.nonces).update(context).update(padded).digest().subarray(0, NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.encryption, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(context);
    const sealed = Buffer.concat([cipher.update(padded), cipher.final()]);
    return Buffer.concat([nonce, sealed, cipher.getAuthTag()]).toString('base64url');
  }

  /** The cursor a token describes, or undefined when the service did not write it for exactly this request. */
  read(
    token: string,
    direction: CursorDirection,
    page: number,
    scope: string,
    sort: SortKey[],
  ): KeysetCursor | undefined {
    if (!/^[A-Za-z0-9_-]+$/.test(token)) return undefined;
    const bytes = Buffer.from(token, 'base64url');
    if (bytes.length < NONCE_BYTES + PADDED_TO + TAG_BYTES) return undefined;
    let values: unknown;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.encryption, bytes.subarray(0, NONCE_BYTES), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(this.context(direction, page, scope));
      decipher.setAuthTag(bytes.subarray(-TAG_BYTES));
      const opened = Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES, -TAG_BYTES)), decipher.final()]);
      values = JSON.parse(opened.toString('utf8'));
    } catch {
      return undefined;
    }
    if (!Array.isArray(values) || values.length !== sort.length + 1) return undefined;
    const [bound, ...key] = values as unknown[];
    if (!Number.isSafeInteger(bound) || !sort.every(({ field }, index) => isValueOf(field, key[index]))) {
      return undefined;
    }
    return { direction, key: key as SortValue[], bound: bound as number };
  }

  private context(direction: CursorDirection, page: number, scope: string): Buffer {
    return Buffer.from(`${FORMAT}\n${direction}\n${page}\n${scope}`, 'utf8');
  }
}
