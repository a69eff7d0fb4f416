import { DateTime, FixedOffsetZone, type Zone } from 'luxon';
import { DATE_FORMATS_HINT } from '../dto/orders-query.dto';

const PATTERN = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})?)?$/;

/** MySQL's DATETIME range. */
const EARLIEST_STORABLE_MS = Date.UTC(1000, 0, 1);
const LATEST_STORABLE_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export const boundsRows = {
  from: (epochMs: number): number | undefined => (epochMs > EARLIEST_STORABLE_MS ? epochMs : undefined),
  before: (epochMs: number): number | undefined => (epochMs <= LATEST_STORABLE_MS ? epochMs : undefined),
};

export type BoundParse = { ok: true; epochMs: number } | { ok: false; message: string };
export type StartBoundParse =
  | {
      ok: true;
      /** The first stored millisecond the bound includes: the written instant, rounded up. */
      epochMs: number;
      /** The written instant truncated to the millisecond; equal bounds compare equal at any precision. */
      writtenMs: number;
    }
  | { ok: false; message: string };

/** An unencoded `+` in a URL arrives as a space; before an offset, that is what it was. */
const SPACE_FOR_PLUS = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?) (\d{2}:\d{2})$/;

interface Parsed {
  start: DateTime;
  /** Digits after the decimal point, if any. */
  fraction?: string;
  dateOnly: boolean;
}

function zoneOf(designator: string | undefined, timeZone: string): Zone | string | undefined {
  if (designator === undefined) return timeZone;
  if (designator === 'Z') return 'utc';
  const [hours, minutes] = designator.slice(1).split(':').map(Number);
  const offsetMinutes = hours * 60 + minutes;
  // No zone on Earth is further than 14 hours from UTC.
  if (minutes > 59 || offsetMinutes > 14 * 60) return undefined;
  return FixedOffsetZone.instance(designator.startsWith('-') ? -offsetMinutes : offsetMinutes);
}

function parse(text: string, timeZone: string): Parsed | string {
  const match = PATTERN.exec(text.replace(SPACE_FOR_PLUS, '$1+$2'));
  if (!match) {
    return `"${text}" is not a date; use ${DATE_FORMATS_HINT}`;
  }
  const [, year, month, day, hour, minute, second, fraction, designator] = match;
  if (Number(hour ?? 0) > 23 || Number(minute ?? 0) > 59 || Number(second ?? 0) > 59) {
    // Luxon would read 24:00:00 as the next midnight; the contract's grammar has no such time.
    return `"${text}" is not a valid time of day`;
  }
  if (Number(year) < 1000) {
    return `"${text}" is out of range; the year must be between 1000 and 9999`;
  }
  const zone = zoneOf(designator, timeZone);
  if (zone === undefined) {
    return `"${text}" has an offset outside -14:00..+14:00`;
  }
  const start = DateTime.fromObject(
    {
      year: Number(year),
      month: Number(month),
      day: Number(day),
      hour: Number(hour ?? 0),
      minute: Number(minute ?? 0),
      second: Number(second ?? 0),
    },
    { zone },
  );
  // Luxon rejects 2026-02-30, 25:00 and the like instead of rolling them over.
  if (!start.isValid) {
    return `"${text}" is not a valid calendar date or time`;
  }
  return { start, fraction, dateOnly: hour === undefined };
}

/** Fractions are compared at the stored precision, milliseconds. */
const fractionMs = (fraction: string | undefined, round: (value: number) => number): number =>
  fraction === undefined ? 0 : round(Number(`0.${fraction}`) * 1000);

/** The inclusive lower bound `startDate` stands for, as epoch milliseconds. */
export function parseStartBound(text: string, timeZone: string): StartBoundParse {
  const parsed = parse(text, timeZone);
  if (typeof parsed === 'string') return { ok: false, message: parsed };
  const secondMs = parsed.start.toMillis();
  return {
    ok: true,
    epochMs: secondMs + fractionMs(parsed.fraction, Math.ceil),
    writtenMs: secondMs + fractionMs(parsed.fraction, Math.floor),
  };
}

/** `startDate` later than `endDate`, compared as written: equal bounds never qualify. */
export const startsAfterEnd = (start: { writtenMs: number }, end: { epochMs: number }): boolean =>
  start.writtenMs >= end.epochMs;

/** The exclusive bound `endDate` stands for: through the end of the day, second or millisecond it names. */
export function parseEndBound(text: string, timeZone: string): BoundParse {
  const parsed = parse(text, timeZone);
  if (typeof parsed === 'string') return { ok: false, message: parsed };
  const { start, fraction, dateOnly } = parsed;
  const end = dateOnly
    ? start.plus({ days: 1 }).toMillis()
    : fraction === undefined
      ? start.toMillis() + 1000
      : start.toMillis() + fractionMs(fraction, Math.floor) + 1;
  return { ok: true, epochMs: end };
}
