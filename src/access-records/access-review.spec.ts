import { describe, expect, it } from '@jest/globals';
import { readBusinessHours } from '../config/access-records.config';
import type { ListedRecord } from './access-record-reader';
import { REPEATED_LOOKUPS, reviewOf, withinBusinessHours } from './access-review';

const HOURS = readBusinessHours('Mon-Fri 09:00-18:00');
const ZONE = 'Asia/Seoul';

/** Seoul is UTC+9 all year: 2026-12-07 is a Monday. */
const seoul = (day: number, hour: number, minute = 0) => new Date(Date.UTC(2026, 11, day, hour - 9, minute));

function recordOf(overrides: Partial<ListedRecord>): ListedRecord {
  return {
    table: 'record',
    id: 1,
    chain: 'chain-a',
    seq: 1,
    prevHash: '',
    hash: '',
    at: seoul(7, 10),
    identifier: '9000',
    role: 'ADMIN',
    address: '10.0.0.7',
    requestId: 'request',
    action: 'view',
    parameters: {},
    status: 200,
    problem: null,
    orders: 0,
    members: [],
    reason: null,
    fields: null,
    position: null,
    bytes: null,
    complete: null,
    flagged: false,
    ...overrides,
  };
}

describe('the monthly review (docs/OPERATIONS.md, "Access records")', () => {
  it('reads business hours in APP_TIMEZONE: weekdays from the first minute, until the last one excluded', () => {
    expect(HOURS).toEqual({ lastWeekday: 5, fromMinute: 540, untilMinute: 1080 });
    expect(withinBusinessHours(seoul(7, 9), HOURS, ZONE)).toBe(true);
    expect(withinBusinessHours(seoul(7, 8, 59), HOURS, ZONE)).toBe(false);
    expect(withinBusinessHours(seoul(7, 18), HOURS, ZONE)).toBe(false);
    // Saturday 10:00 in Seoul, a weekday's morning in UTC.
    expect(withinBusinessHours(seoul(12, 10), HOURS, ZONE)).toBe(false);
    expect(withinBusinessHours(seoul(12, 10), readBusinessHours('Mon-Sat 09:00-18:00'), ZONE)).toBe(true);
  });

  it('sums each identifier’s pages, members, downloads, reasons, late requests, repeated lookups and flags', () => {
    const lookups = Array.from({ length: REPEATED_LOOKUPS }, (_, index) =>
      recordOf({ parameters: { userId: 42 }, members: [42], at: seoul(8, 10 + index) }),
    );
    const review = reviewOf(
      [
        recordOf({ members: [1, 2, 3] }),
        recordOf({ members: [3, 4], at: seoul(7, 23) }),
        // A refused page handed nothing over.
        recordOf({ status: 400, members: null, orders: null }),
        ...lookups,
        recordOf({ action: 'download', orders: 5000, reason: 'Refund audit for concert 7', flagged: true }),
        recordOf({ action: 'download', orders: 10, reason: '=HYPERLINK("http://x","y")' }),
        recordOf({ identifier: '7000', parameters: { userId: 42 } }),
      ],
      HOURS,
      ZONE,
    );
    expect(review).toEqual([
      {
        identifier: '9000',
        pages: 2 + REPEATED_LOOKUPS,
        membersViewed: 5,
        downloads: 2,
        downloadedOrders: 5010,
        reasons: 'Refund audit for concert 7 | =HYPERLINK("http://x","y")',
        outsideBusinessHours: 1,
        repeatedLookups: `42×${REPEATED_LOOKUPS}`,
        flaggedDownloads: 1,
      },
      expect.objectContaining({ identifier: '7000', pages: 1, repeatedLookups: '' }),
    ]);
  });
});
