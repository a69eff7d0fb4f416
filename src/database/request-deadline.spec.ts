import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { Clock } from '../common/time/clock';
import { DatabaseSaturatedException, DatabaseUnavailableException } from './database-errors';
import { RequestDeadline } from './request-deadline';

// Jest's fake timers move Date.now and every setTimeout together: the test decides when time passes.
const clock: Clock = { now: () => Date.now() };

describe('RequestDeadline (CONTRACT §10)', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  it('tells how much of its budget is left, and stops further statements once none is', () => {
    const deadline = new RequestDeadline(100, clock);
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
    expect(stopped).toBeInstanceOf(DatabaseUnavailableException);
    expect((stopped as DatabaseUnavailableException).problem).toMatchObject({ status: 503, reason: 'timeout' });
  });

  it('answers 503 the moment the budget is spent, whatever the work still does', async () => {
    const deadline = new RequestDeadline(100, clock);
    // Statements that never answer: the driver's own timeout would end them later.
    const outcome = deadline.race(new Promise(() => undefined)).catch((error: unknown) => error);
    await jest.advanceTimersByTimeAsync(99);
    expect(jest.getTimerCount()).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    await expect(outcome).resolves.toMatchObject({ problem: { reason: 'timeout' } });
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

  it('calls a refusal busy unless the requests ahead hold their connections for half the budget or more', () => {
    const deadline = new RequestDeadline(200, clock);
    expect(deadline.refusal({ typicalHoldMs: 30, longestHoldMs: 90 })).toBeInstanceOf(DatabaseSaturatedException);
    expect(deadline.refusal({ typicalHoldMs: 101, longestHoldMs: 0 })).toBeInstanceOf(DatabaseUnavailableException);
    expect(deadline.refusal({ typicalHoldMs: 0, longestHoldMs: 101 })).toBeInstanceOf(DatabaseUnavailableException);
  });
});
