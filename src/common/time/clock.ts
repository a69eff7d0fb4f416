import { performance } from 'node:perf_hooks';

/** Milliseconds on a clock that only moves forward. */
export abstract class Clock {
  abstract now(): number;
}

/** The process's monotonic clock: unlike the wall clock, a time-sync step cannot shorten or stretch a deadline. */
export class MonotonicClock extends Clock {
  now(): number {
    return performance.now();
  }
}
