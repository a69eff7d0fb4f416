import { Global, Module } from '@nestjs/common';
import { Clock, MonotonicClock } from './clock';

/** One clock for the whole application; tests of a single class pass their own. */
@Global()
@Module({
  providers: [{ provide: Clock, useClass: MonotonicClock }],
  exports: [Clock],
})
export class ClockModule {}
