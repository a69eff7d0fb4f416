import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { monitorEventLoopDelay, type ELDHistogram } from 'node:perf_hooks';

/** How long one window of the histogram lasts; the figure covers the last one or two. */
const WINDOW_MS = 500;
const NS_PER_MS = 1e6;

/** How late this process's event loop has lately been in running what was ready: the time it takes the process to
 * notice an answer that has arrived. */
export abstract class EventLoopDelay {
  abstract recentMs(): number;
}

/** Node's own event-loop delay histogram, read as the worst delay of the current and the previous window. */
@Injectable()
export class MonitoredEventLoopDelay extends EventLoopDelay implements OnApplicationShutdown {
  private readonly histogram: ELDHistogram = monitorEventLoopDelay({ resolution: 10 });
  private previousMaxMs = 0;
  private readonly rotation: NodeJS.Timeout;

  constructor() {
    super();
    this.histogram.enable();
    this.rotation = setInterval(() => {
      this.previousMaxMs = this.histogram.max / NS_PER_MS;
      this.histogram.reset();
    }, WINDOW_MS);
    // The measurement alone must not keep the process alive.
    this.rotation.unref();
  }

  recentMs(): number {
    // An empty window reports its max as 0: the previous one still speaks for it.
    return Math.max(this.previousMaxMs, this.histogram.count > 0 ? this.histogram.max / NS_PER_MS : 0);
  }

  onApplicationShutdown(): void {
    clearInterval(this.rotation);
    this.histogram.disable();
  }
}
