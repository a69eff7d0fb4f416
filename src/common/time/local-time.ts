import { DateTime } from 'luxon';

/** `YYYY-MM-DD HH:mm:ss.SSS` in UTC: how both databases hold `created_at`, so bounds compare like stored values. */
export function toStoredDateTime(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 23).replace('T', ' ');
}

/** Reads a stored time: mysql2 gives a Date (the connection is UTC), sql.js the stored UTC text. */
export function storedDateTimeToEpochMs(value: Date | string): number {
  return value instanceof Date ? value.getTime() : Date.parse(`${value.replace(' ', 'T')}Z`);
}

/** Shows times the way CONTRACT §4 asks: `YYYY-MM-DDThh:mm:ss` in the service's zone, truncated to the second. */
export class LocalTimeFormatter {
  constructor(readonly timeZone: string) {}

  format(epochMs: number): string {
    return DateTime.fromMillis(epochMs, { zone: this.timeZone }).toFormat("yyyy-MM-dd'T'HH:mm:ss");
  }
}
