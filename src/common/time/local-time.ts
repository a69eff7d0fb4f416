import { IANAZone } from 'luxon';

/** `YYYY-MM-DD HH:mm:ss.SSS` in UTC: how both databases hold `created_at`, so bounds compare like stored values. */
export function toStoredDateTime(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 23).replace('T', ' ');
}

/** Reads a stored time: mysql2 gives a Date (the connection is UTC), sql.js the stored UTC text. */
export function storedDateTimeToEpochMs(value: Date | string): number {
  return value instanceof Date ? value.getTime() : Date.parse(`${value.replace(' ', 'T')}Z`);
}

/** Zone offsets change at most every quarter of an hour (at transitions), so one lookup serves a whole quarter. */
const QUARTER_HOUR_MS = 15 * 60_000;
const DAY_MS = 24 * 60 * 60_000;
/** About 137 years of days: more than any listing spans, so an export in any order reuses what it looked up. */
const MAX_CACHED_DAYS = 50_000;
/** A day whose offset changes is looked up per quarter hour; a zone has a few such days a year. */
const MAX_CACHED_QUARTERS = 10_000;
/** The day holds a transition: its offsets are per quarter hour. */
const CHANGES_WITHIN_DAY = Number.NaN;
const TWO_DIGITS = Array.from({ length: 60 }, (_, value) => String(value).padStart(2, '0'));

/** Shows times as the contract asks: `YYYY-MM-DDThh:mm:ss` in the service's zone, truncated to the second. */
export class LocalTimeFormatter {
  private readonly zone: IANAZone;
  private readonly dayOffsetMinutes = new Map<number, number>();
  private readonly quarterOffsetMinutes = new Map<number, number>();
  /** `YYYY-MM-DDT` of each local day shown so far. */
  private readonly datePrefixes = new Map<number, string>();

  constructor(readonly timeZone: string) {
    this.zone = IANAZone.create(timeZone);
  }

  format(epochMs: number): string {
    const day = Math.floor(epochMs / DAY_MS);
    let offset = this.dayOffsetMinutes.get(day);
    if (offset === undefined) {
      if (this.dayOffsetMinutes.size >= MAX_CACHED_DAYS) this.dayOffsetMinutes.clear();
      const atStart = this.zone.offset(day * DAY_MS);
      offset = atStart === this.zone.offset((day + 1) * DAY_MS - 1) ? atStart : CHANGES_WITHIN_DAY;
      this.dayOffsetMinutes.set(day, offset);
    }
    if (Number.isNaN(offset)) offset = this.quarterOffset(Math.floor(epochMs / QUARTER_HOUR_MS));
    // The date from a cache of days and the time from its seconds: a Date and its ISO text per timestamp were the
    // largest share of an export's CPU after the offsets.
    const localMs = epochMs + offset * 60_000;
    const localDay = Math.floor(localMs / DAY_MS);
    const second = Math.floor((localMs - localDay * DAY_MS) / 1000);
    const minute = Math.floor(second / 60);
    return `${this.datePrefix(localDay)}${TWO_DIGITS[Math.floor(minute / 60)]}:${TWO_DIGITS[minute % 60]}:${TWO_DIGITS[second % 60]}`;
  }

  private datePrefix(localDay: number): string {
    let prefix = this.datePrefixes.get(localDay);
    if (prefix === undefined) {
      if (this.datePrefixes.size >= MAX_CACHED_DAYS) this.datePrefixes.clear();
      prefix = new Date(localDay * DAY_MS).toISOString().slice(0, 11);
      this.datePrefixes.set(localDay, prefix);
    }
    return prefix;
  }

  private quarterOffset(quarter: number): number {
    let offset = this.quarterOffsetMinutes.get(quarter);
    if (offset === undefined) {
      if (this.quarterOffsetMinutes.size >= MAX_CACHED_QUARTERS) this.quarterOffsetMinutes.clear();
      offset = this.zone.offset(quarter * QUARTER_HOUR_MS);
      this.quarterOffsetMinutes.set(quarter, offset);
    }
    return offset;
  }
}
