import { Global, Module } from '@nestjs/common';
import { Clock, MonotonicClock } from './clock';
import { EventLoopDelay, MonitoredEventLoopDelay } from './event-loop-delay';

/** One clock, and one measure of the event loop's delay, for the whole application; tests of a single class pass their own. */
@Global()
@Module({
  providers: [
    { provide: Clock, useClass: MonotonicClock },
    { provide: EventLoopDelay, useClass: MonitoredEventLoopDelay },
  ],
  exports: [Clock, EventLoopDelay],
})
export class ClockModule {}
