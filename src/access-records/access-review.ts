import { DateTime } from 'luxon';
import type { BusinessHours } from '../config/access-records.config';
import type { ListedRecord } from './access-record-reader';

/** A member looked up by `userId` this many times in a month by one identifier is named in the review. */
export const REPEATED_LOOKUPS = 3;

/** docs/OPERATIONS.md, the monthly review: one line per identifier. */
export interface ReviewLine {
  identifier: string;
  pages: number;
  membersViewed: number;
  downloads: number;
  downloadedOrders: number;
  reasons: string;
  outsideBusinessHours: number;
  repeatedLookups: string;
  flaggedDownloads: number;
}

export const REVIEW_COLUMNS: readonly (keyof ReviewLine)[] = [
  'identifier',
  'pages',
  'membersViewed',
  'downloads',
  'downloadedOrders',
  'reasons',
  'outsideBusinessHours',
  'repeatedLookups',
  'flaggedDownloads',
];

export function withinBusinessHours(at: Date, hours: BusinessHours, timeZone: string): boolean {
  const local = DateTime.fromJSDate(at, { zone: timeZone });
  const minute = local.hour * 60 + local.minute;
  return local.weekday <= hours.lastWeekday && minute >= hours.fromMinute && minute < hours.untilMinute;
}

export function reviewOf(records: readonly ListedRecord[], hours: BusinessHours, timeZone: string): ReviewLine[] {
  const byIdentifier = new Map<string, ListedRecord[]>();
  for (const record of records) {
    byIdentifier.set(record.identifier, [...(byIdentifier.get(record.identifier) ?? []), record]);
  }
  return [...byIdentifier].map(([identifier, own]) => {
    const pages = own.filter(({ action, status }) => action === 'view' && status < 400);
    const downloads = own.filter(({ action, status }) => action === 'download' && status < 400);
    const lookups = new Map<number, number>();
    for (const { parameters } of own) {
      if (typeof parameters.userId === 'number') {
        lookups.set(parameters.userId, (lookups.get(parameters.userId) ?? 0) + 1);
      }
    }
    return {
      identifier,
      pages: pages.length,
      membersViewed: new Set(pages.flatMap(({ members }) => members ?? [])).size,
      downloads: downloads.length,
      downloadedOrders: downloads.reduce((sum, { orders }) => sum + (orders ?? 0), 0),
      reasons: downloads.map(({ reason }) => reason ?? '').join(' | '),
      outsideBusinessHours: own.filter(({ at }) => !withinBusinessHours(at, hours, timeZone)).length,
      repeatedLookups: [...lookups]
        .filter(([, count]) => count >= REPEATED_LOOKUPS)
        .map(([member, count]) => `${member}×${count}`)
        .join(' '),
      flaggedDownloads: downloads.filter(({ flagged }) => flagged).length,
    };
  });
}
