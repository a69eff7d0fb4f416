import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { Clock } from '../common/time/clock';
import { DatabaseSaturatedError, DatabaseUnavailableError } from './database-errors';
import { databaseIsTheCause, RequestDeadline, type LatenessEvidence } from './request-deadline';
import { StatementTimings } from './statement-timings';

// Jest's fake timers move Date.now and every setTimeout together: the test decides when time passes.
const clock: Clock = { now: () => Date.now() };
// Time is faked, not the event loop's turns: a deadline decides who is to blame after the I/O of its turn (setImmediate).
const CLOCK_ONLY = { doNotFake: ['setImmediate' as const] };

describe('RequestDeadline (docs/API.md §10)', () => {
  beforeEach(() => {
    jest.useFakeTimers(CLOCK_ONLY);
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  /** A deadline on a server that was sent a statement now and answers nothing. */
  function onSilentServer(budgetMs: number): RequestDeadline {
    const deadline = new RequestDeadline(budgetMs, clock);
    const timings = new StatementTimings(clock);
    deadline.attempting(timings);
    timings.sent();
    return deadline;
  }

  it('tells how much of its budget is left, and stops further statements once none is', () => {
    const deadline = onSilentServer(100);
    jest.advanceTimersByTime(40);
    expect(deadline.remainingMs()).toBe(60);
    jest.advanceTimersByTime(60);
    expect(() => deadline.check()).not.toThrow();
    jest.advanceTimersByTime(1);
    let stopped: unknown;
    try {
      deadline.check();
    } catch (error) {
      stopped = error;
    }
    expect(stopped).toBeInstanceOf(DatabaseUnavailableError);
    expect((stopped as DatabaseUnavailableError).timedOut).toBe(true);
  });

  it('answers 503 the moment the budget is spent, whatever the work still does', async () => {
    const deadline = onSilentServer(100);
    // Statements that never answer: the driver's own timeout would end them later.
    const outcome = deadline.race(new Promise(() => undefined)).catch((error: unknown) => error);
    await jest.advanceTimersByTimeAsync(99);
    expect(jest.getTimerCount()).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    await expect(outcome).resolves.toMatchObject({ timedOut: true });
  });

  it('leaves no timer behind once the work is answered', async () => {
    const deadline = new RequestDeadline(100, clock);
    await expect(deadline.race(Promise.resolve('page'))).resolves.toBe('page');
    expect(jest.getTimerCount()).toBe(0);
  });

  it('sets no timer at all without a budget (the embedded database)', async () => {
    const deadline = new RequestDeadline(Number.POSITIVE_INFINITY, clock);
    const work = deadline.race(new Promise((resolve) => setTimeout(() => resolve('page'), 10)));
    expect(jest.getTimerCount()).toBe(1);
    await jest.advanceTimersByTimeAsync(10);
    await expect(work).resolves.toBe('page');
  });

  describe('who made a late request late (databaseIsTheCause)', () => {
    const budgetMs = 200;
    // A healthy server under load from a saturated process: answers keep coming, its statements are quick.
    const prompt: LatenessEvidence = { oldestWaitingMs: 20, sinceLastAnswerMs: 3, recentMs: 4, loopDelayMs: 0 };

    it('the service, while the server answers promptly: the time went in waiting for a turn', () => {
      expect(databaseIsTheCause(budgetMs, prompt)).toBe(false);
    });

    it('the service, when statements look slow only by as much as the event loop is late in noticing them', () => {
      expect(databaseIsTheCause(budgetMs, { ...prompt, recentMs: 180, loopDelayMs: 150 })).toBe(false);
    });

    it('the database, when a statement has waited half the budget and nothing came back from it meanwhile', () => {
      expect(databaseIsTheCause(budgetMs, { ...prompt, oldestWaitingMs: 101, sinceLastAnswerMs: 150 })).toBe(true);
    });

    it('not the database for that silence when the event loop itself was too late to notice an answer', () => {
      const silent = { ...prompt, oldestWaitingMs: 150, sinceLastAnswerMs: 150 };
      expect(databaseIsTheCause(budgetMs, { ...silent, loopDelayMs: 120 })).toBe(false);
    });

    it('the database, when its own latest statements take half the budget beyond the event loop’s delay', () => {
      expect(databaseIsTheCause(budgetMs, { ...prompt, recentMs: 130, loopDelayMs: 20 })).toBe(true);
    });

    it('by what the server does now: silent right after a slow spell, or prompt again right after one', () => {
      // The latest statements were quick, and then it stopped answering: unavailable at once.
      expect(databaseIsTheCause(budgetMs, { ...prompt, oldestWaitingMs: 120, sinceLastAnswerMs: 130 })).toBe(true);
      expect(databaseIsTheCause(budgetMs, { ...prompt, recentMs: 3 })).toBe(false);
    });
  });

  it('refuses as busy or as the database by the statements of the server it waits for', () => {
    const timings = new StatementTimings(clock);
    const deadline = new RequestDeadline(200, clock);
    deadline.attempting(timings);
    const stuck = timings.sent();
    jest.advanceTimersByTime(50);
    expect(deadline.refusal()).toBeInstanceOf(DatabaseSaturatedError);
    jest.advanceTimersByTime(60);
    expect(deadline.refusal()).toBeInstanceOf(DatabaseUnavailableError);
    // It answers after all, and promptly from then on: what it does now is what counts.
    timings.answered(stuck);
    for (let quick = 0; quick < 3; quick += 1) timings.answered(timings.sent());
    expect(deadline.refusal()).toBeInstanceOf(DatabaseSaturatedError);
  });

  it('answers a spent budget as busy when the process, not the server, was late', async () => {
    const deadline = new RequestDeadline(100, clock, { recentMs: () => 80 });
    const timings = new StatementTimings(clock);
    deadline.attempting(timings);
    timings.sent();
    const outcome = deadline.race(new Promise(() => undefined)).catch((error: unknown) => error);
    await jest.advanceTimersByTimeAsync(100);
    await expect(outcome).resolves.toBeInstanceOf(DatabaseSaturatedError);
  });
});
