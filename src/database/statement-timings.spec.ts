import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { Clock } from '../common/time/clock';
import { giveUpAfterMs } from './read-session';
import { StatementTimings } from './statement-timings';

// Jest's fake timers move Date.now and every setTimeout together: the test decides when time passes.
const clock: Clock = { now: () => Date.now() };

/** Records statements that each take `ms` of the fake clock. */
function answer(timings: StatementTimings, ms: number, times = 1): void {
  for (let index = 0; index < times; index += 1) {
    const sent = timings.sent();
    jest.advanceTimersByTime(ms);
    timings.answered(sent);
  }
}

describe('StatementTimings and the give-up time (docs/API.md §11)', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  it('knows no p99 until enough statements have answered, then the server’s own', () => {
    const timings = new StatementTimings(clock);
    answer(timings, 4, 31);
    expect(timings.p99()).toBeUndefined();
    answer(timings, 4, 97);
    answer(timings, 40, 2);
    // 130 statements: two of them at 40 ms are the slowest 1.5 %.
    expect(timings.p99()).toBe(40);
  });

  it('gives up at five times the p99, within a floor and a quarter of the budget', () => {
    expect(giveUpAfterMs(undefined, 2000)).toBe(500);
    expect(giveUpAfterMs(3, 2000)).toBe(100);
    expect(giveUpAfterMs(60, 2000)).toBe(300);
    expect(giveUpAfterMs(400, 2000)).toBe(500);
  });

  it('tells how long the oldest statement has waited and how long since the server last answered anything', () => {
    const timings = new StatementTimings(clock);
    answer(timings, 2, 5);
    const waiting = timings.sent();
    jest.advanceTimersByTime(300);
    expect(timings.evidence()).toEqual({ oldestWaitingMs: 300, sinceLastAnswerMs: 300, recentMs: 2 });
    expect(timings.silentForMs()).toBe(300);
    // A health check answers: the server is not silent, though the statement still waits.
    timings.heardFrom();
    expect(timings.silentForMs()).toBe(0);
    expect(timings.evidence()).toMatchObject({ oldestWaitingMs: 300, sinceLastAnswerMs: 0 });
    // Given up after the check answered: it no longer waits, and its time is not one of the server's.
    timings.unanswered(waiting);
    expect(timings.evidence()).toEqual({ oldestWaitingMs: 0, sinceLastAnswerMs: 0, recentMs: 2 });
  });

  it('remembers a statement that ended unanswered as the server’s silence, until the server answers again', () => {
    const timings = new StatementTimings(clock);
    const timedOut = timings.sent();
    jest.advanceTimersByTime(200);
    // The driver's own timeout ended it: nothing waits now, but the server has not answered for 200 ms.
    timings.unanswered(timedOut);
    jest.advanceTimersByTime(10);
    expect(timings.evidence()).toMatchObject({ oldestWaitingMs: 210 });
    timings.heardFrom();
    expect(timings.evidence()).toMatchObject({ oldestWaitingMs: 0 });
  });
});
