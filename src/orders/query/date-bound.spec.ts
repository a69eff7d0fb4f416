import { describe, expect, it } from '@jest/globals';
import { boundsRows, parseEndBound, parseStartBound, startsAfterEnd } from './date-bound';

const SEOUL = 'Asia/Seoul';
const utc = (text: string): number => Date.parse(text);

describe('parseStartBound', () => {
  it.each([
    ['2026-03-10', '2026-03-09T15:00:00.000Z'],
    ['2026-03-10T08:30:00', '2026-03-09T23:30:00.000Z'],
    ['2026-03-10T08:30:00.25', '2026-03-09T23:30:00.250Z'],
    ['2026-03-10T08:30:00Z', '2026-03-10T08:30:00.000Z'],
    ['2026-03-10T08:30:00-05:30', '2026-03-10T14:00:00.000Z'],
    // A space before the offset is a `+` that arrived unencoded.
    ['2026-03-10T00:00:00 09:00', '2026-03-09T15:00:00.000Z'],
    ['2026-03-10T00:00:00.5 05:30', '2026-03-09T18:30:00.500Z'],
  ])('reads %s as %s', (text, expected) => {
    expect(parseStartBound(text, SEOUL)).toEqual({ ok: true, epochMs: utc(expected), writtenMs: utc(expected) });
  });

  it('begins a start between two stored milliseconds at the later one, and remembers what was written', () => {
    expect(parseStartBound('2026-03-10T00:00:00.0004', SEOUL)).toEqual({
      ok: true,
      epochMs: utc('2026-03-09T15:00:00.001Z'),
      writtenMs: utc('2026-03-09T15:00:00.000Z'),
    });
  });

  it('reads local times in the configured zone, daylight saving included', () => {
    expect(parseStartBound('2026-07-01T12:00:00', 'America/New_York')).toMatchObject({
      ok: true,
      epochMs: utc('2026-07-01T16:00:00.000Z'),
    });
  });
});

describe('parseEndBound (exclusive)', () => {
  it.each([
    ['a bare date runs through the end of the day', '2026-03-10', '2026-03-10T15:00:00.000Z'],
    ['a date-time runs through the end of its second', '2026-03-10T23:59:59', '2026-03-10T15:00:00.000Z'],
    ['a fraction runs through its millisecond', '2026-03-10T23:59:59.5', '2026-03-10T14:59:59.501Z'],
    ['an offset date-time runs through the end of its second', '2026-03-10T00:00:00Z', '2026-03-10T00:00:01.000Z'],
  ])('%s', (_, text, expected) => {
    expect(parseEndBound(text, SEOUL)).toEqual({ ok: true, epochMs: utc(expected) });
  });
});

describe('startsAfterEnd', () => {
  const bounds = (start: string, end: string) => {
    const from = parseStartBound(start, SEOUL);
    const to = parseEndBound(end, SEOUL);
    if (!from.ok || !to.ok) throw new Error('test bounds must parse');
    return startsAfterEnd(from, to);
  };

  it.each([
    '2026-03-10',
    '2026-03-10T10:00:00',
    '2026-03-10T10:00:00.5',
    '2026-03-10T10:00:00.0001',
    '2026-03-10T10:00:00.123456789Z',
    '2026-03-10T10:00:00+09:00',
  ])('never holds for equal bounds: %s', (text) => {
    expect(bounds(text, text)).toBe(false);
  });

  it('holds when the start is later than the end, at any precision', () => {
    expect(bounds('2026-03-11', '2026-03-10')).toBe(true);
    expect(bounds('2026-03-10T10:00:01', '2026-03-10T10:00:00')).toBe(true);
    expect(bounds('2026-03-10T10:00:00.0011', '2026-03-10T10:00:00.0001')).toBe(true);
  });

  it('does not hold for a start inside the day or second the end names', () => {
    expect(bounds('2026-03-10T23:00:00', '2026-03-10')).toBe(false);
    expect(bounds('2026-03-10T10:00:00.9', '2026-03-10T10:00:00')).toBe(false);
  });
});

describe('invalid dates', () => {
  it.each([
    '2026-02-30',
    '2026-02-29',
    '0000-00-00',
    '0999-12-31',
    '2026-13-01',
    '2026-1-5',
    '2026-01-01T24:00:00',
    '2026-01-01T23:60:00',
    '2026-01-01T23:59:60',
    '2026-01-01T10:00',
    '2026-01-01 10:00:00',
    '2026-01-01T10:00:00+15:00',
    '2026-01-01T10:00:00+14:01',
    '2026-01-01T10:00:00-14:30',
    '2026-01-01T10:00:00+0900',
    '2026-01-01T10:00:00  09:00',
    '2026-01-01 09:00',
    '1767225600',
    'yesterday',
    '',
  ])('rejects %j', (text) => {
    expect(parseStartBound(text, SEOUL)).toEqual({ ok: false, message: expect.any(String) });
    expect(parseEndBound(text, SEOUL)).toEqual({ ok: false, message: expect.any(String) });
  });
});

describe('boundsRows', () => {
  it('drops bounds outside the range a DATETIME column can hold', () => {
    const start = parseStartBound('1000-01-01T00:00:00Z', SEOUL);
    const end = parseEndBound('9999-12-31', 'UTC');
    expect(start.ok && boundsRows.from(start.epochMs)).toBeUndefined();
    expect(end.ok && boundsRows.before(end.epochMs)).toBeUndefined();
    expect(boundsRows.from(utc('2026-01-01T00:00:00Z'))).toBe(utc('2026-01-01T00:00:00Z'));
  });
});
