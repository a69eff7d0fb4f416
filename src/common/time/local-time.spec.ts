import { describe, expect, it, jest } from '@jest/globals';
import { DateTime, IANAZone } from 'luxon';
import { LocalTimeFormatter, storedDateTimeToEpochMs, toStoredDateTime } from './local-time';

describe('LocalTimeFormatter', () => {
  it('shows Seoul wall-clock time, truncated to the second', () => {
    const seoul = new LocalTimeFormatter('Asia/Seoul');
    expect(seoul.format(Date.parse('2026-03-09T14:59:59.999Z'))).toBe('2026-03-09T23:59:59');
    expect(seoul.format(Date.parse('2026-03-09T15:00:00.000Z'))).toBe('2026-03-10T00:00:00');
  });

  it('follows daylight saving transitions, including repeated lookups in the same quarter hour', () => {
    const newYork = new LocalTimeFormatter('America/New_York');
    // 2026-03-08 02:00 EST becomes 03:00 EDT (07:00Z).
    expect(newYork.format(Date.parse('2026-03-08T06:59:59Z'))).toBe('2026-03-08T01:59:59');
    expect(newYork.format(Date.parse('2026-03-08T07:00:00Z'))).toBe('2026-03-08T03:00:00');
    expect(newYork.format(Date.parse('2026-03-08T07:14:59Z'))).toBe('2026-03-08T03:14:59');
    // 2026-11-01 02:00 EDT falls back to 01:00 EST (06:00Z).
    expect(newYork.format(Date.parse('2026-11-01T05:59:59Z'))).toBe('2026-11-01T01:59:59');
    expect(newYork.format(Date.parse('2026-11-01T06:00:00Z'))).toBe('2026-11-01T01:00:00');
  });

  it('handles zones with quarter-hour offsets', () => {
    expect(new LocalTimeFormatter('Asia/Kathmandu').format(Date.parse('2026-01-01T00:00:00Z'))).toBe(
      '2026-01-01T05:45:00',
    );
  });

  it('asks the zone about each day once, in whatever order two years of times come, and shows each as luxon does', () => {
    const zone = 'Europe/Berlin';
    const from = Date.parse('2025-01-01T00:00:00Z');
    const twoYearsMs = 2 * 365 * 24 * 3_600_000;
    // A fixed walk that jumps across the two years, as an export sorted by member does: no two neighbours are close.
    const times = Array.from({ length: 20_000 }, (_, i) => from + ((i * 7_919_993_117) % twoYearsMs));
    const expected = times.map((epochMs) => DateTime.fromMillis(epochMs, { zone }).toFormat("yyyy-MM-dd'T'HH:mm:ss"));
    const berlin = new LocalTimeFormatter(zone);
    const lookups = jest.spyOn(IANAZone.prototype, 'offset');
    try {
      expect(times.map((epochMs) => berlin.format(epochMs))).toEqual(expected);
      // Two lookups per day (its start and its end), and a quarter hour's on each of the 4 days with a transition.
      expect(lookups.mock.calls.length).toBeLessThanOrEqual(2 * 731 + 4 * 96);
    } finally {
      lookups.mockRestore();
    }
  });
});

describe('stored times', () => {
  it('round-trip through the UTC text both databases hold', () => {
    const epochMs = Date.parse('2026-03-09T15:00:00.123Z');
    expect(toStoredDateTime(epochMs)).toBe('2026-03-09 15:00:00.123');
    expect(storedDateTimeToEpochMs('2026-03-09 15:00:00.123')).toBe(epochMs);
    expect(storedDateTimeToEpochMs(new Date(epochMs))).toBe(epochMs);
  });
});
