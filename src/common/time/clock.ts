import { performance } from 'node:perf_hooks';

/**
 * Milliseconds on a clock that only moves forward. Code that measures waits
 * and deadlines asks an injected Clock, so that its tests move time
 * themselves instead of sleeping and hoping the machine keeps up.
 */
export abstract class Clock {
  abstract now(): number;
}

/** The process's monotonic clock: unlike the wall clock, a time-sync step cannot shorten or stretch a deadline. */
export class MonotonicClock extends Clock {
  now(): number {
    return performance.now();
  }
}
