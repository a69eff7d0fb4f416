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
const MAX_CACHED_QUARTERS = 50_000;

/**
 * Shows times the way docs/API.md §4 asks: `YYYY-MM-DDThh:mm:ss` in the service's
 * zone, truncated to the second. The zone's offset comes from luxon (the IANA
 * rules, daylight saving included) and is remembered per quarter hour, since
 * asking Intl for it on every timestamp was a visible share of the service's
 * CPU (docs/BENCHMARKS.md).
 */
export class LocalTimeFormatter {
  private readonly zone: IANAZone;
  private readonly offsetMinutes = new Map<number, number>();

  constructor(readonly timeZone: string) {
    this.zone = IANAZone.create(timeZone);
  }

  format(epochMs: number): string {
    const quarter = Math.floor(epochMs / QUARTER_HOUR_MS);
    let offset = this.offsetMinutes.get(quarter);
    if (offset === undefined) {
      if (this.offsetMinutes.size >= MAX_CACHED_QUARTERS) this.offsetMinutes.clear();
      offset = this.zone.offset(quarter * QUARTER_HOUR_MS);
      this.offsetMinutes.set(quarter, offset);
    }
    return new Date(epochMs + offset * 60_000).toISOString().slice(0, 19);
  }
}
