import { describe, expect, it } from '@jest/globals';
import { hasReached, parseGtidPosition, PrimaryTimeline, progressOf } from './replication-lag';

const at = (seconds: number) => seconds * 1000;

describe('parseGtidPosition', () => {
  it('keeps the sequence number of each domain', () => {
    expect(parseGtidPosition('0-1-1234,1-2-55')).toEqual(
      new Map([
        [0, 1234],
        [1, 55],
      ]),
    );
    expect(parseGtidPosition('')).toEqual(new Map());
  });

  it('compares domain by domain: behind in one domain is behind', () => {
    const primary = parseGtidPosition('0-1-100,1-2-7');
    expect(hasReached(parseGtidPosition('0-1-100,1-2-7'), primary)).toBe(true);
    expect(hasReached(parseGtidPosition('0-1-250,1-2-6'), primary)).toBe(false);
    expect(hasReached(parseGtidPosition('0-1-99'), parseGtidPosition(''))).toBe(true);
    expect(progressOf(parseGtidPosition('0-1-100,1-2-7'))).toBe(107);
  });
});

describe('PrimaryTimeline', () => {
  it('says 0 for a replica that has the primary’s newest position, however long the primary has been idle', () => {
    const timeline = new PrimaryTimeline(60_000);
    timeline.record(parseGtidPosition('0-1-10'), at(0));
    timeline.record(parseGtidPosition('0-1-10'), at(30));
    expect(timeline.lagSeconds(parseGtidPosition('0-1-10'), at(31))).toBe(0);
  });

  it('counts from the last time the primary was at a position the replica has reached', () => {
    const timeline = new PrimaryTimeline(60_000);
    // The primary commits once a second; the replica stopped applying after transaction 3.
    for (let second = 1; second <= 10; second += 1) timeline.record(parseGtidPosition(`0-1-${second}`), at(second));
    expect(timeline.lagSeconds(parseGtidPosition('0-1-3'), at(10))).toBe(7);
    expect(timeline.lagSeconds(parseGtidPosition('0-1-3'), at(12))).toBe(9);
  });

  it('keeps growing for a stopped replica while an idle primary stays where it is', () => {
    const timeline = new PrimaryTimeline(60_000);
    timeline.record(parseGtidPosition('0-1-5'), at(0));
    timeline.record(parseGtidPosition('0-1-6'), at(1));
    timeline.record(parseGtidPosition('0-1-6'), at(20));
    // Position 5 was last seen at 0 s: the replica lacks what was committed after it.
    expect(timeline.lagSeconds(parseGtidPosition('0-1-5'), at(20))).toBe(20);
  });

  it('is at least the age of the oldest sample for a replica behind everything remembered', () => {
    const timeline = new PrimaryTimeline(5_000);
    for (let second = 0; second <= 30; second += 1)
      timeline.record(parseGtidPosition(`0-1-${100 + second}`), at(second));
    expect(timeline.lagSeconds(parseGtidPosition('0-1-1'), at(30))).toBeGreaterThanOrEqual(5);
  });

  it('cannot tell before the primary was seen', () => {
    expect(new PrimaryTimeline(60_000).lagSeconds(parseGtidPosition('0-1-1'), at(1))).toBeUndefined();
  });
});
