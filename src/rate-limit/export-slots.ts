import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { Semaphore } from 'redis-semaphore';
import type { Caller } from '../auth/role';
import type { AppConfig } from '../config/app.config';
import { APP_CONFIG } from '../config/config.module';
import { CALLER_LIMITS_REDIS } from './caller-limits-redis';

/** A running export's place among its caller's; given back when the export ends, however it ends. */
export interface ExportSlot {
  release(): Promise<void>;
}

/** How long a slot outlives an instance that died holding it. */
const SLOT_EXPIRY_MS = 30_000;

/** At most EXPORTS_PER_CALLER exports run at once for one caller. */
@Injectable()
export class ExportSlots {
  private readonly logger = new Logger('ExportSlots');
  private readonly perCaller: number;
  /** The exports this instance runs, per caller key: the count when Redis is not there to share it. */
  private readonly local = new Map<string, number>();

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(CALLER_LIMITS_REDIS) private readonly redis: Redis | null,
  ) {
    this.perCaller = config.exportsPerCaller;
  }

  /** A slot for one more export of this caller, or undefined when they already run as many as they may. */
  async take(caller: Caller): Promise<ExportSlot | undefined> {
    const key = `${caller.role}:${caller.id}`;
    if (this.redis?.status === 'ready') {
      const semaphore = new Semaphore(this.redis, `orders-exports:${key}`, this.perCaller, {
        lockTimeout: SLOT_EXPIRY_MS,
        acquireAttemptsLimit: 1,
        // An export outliving its slot is not stopped: the slot only guards how many start.
        onLockLost: (error) => this.logger.warn(`An export's slot expired in Redis: ${error.message}`),
      });
      try {
        if (!(await semaphore.tryAcquire())) return undefined;
        return { release: () => semaphore.release().catch(() => undefined) };
      } catch (error) {
        this.logger.warn(
          `Redis could not count running exports (${(error as Error).message}); this instance counts its own`,
        );
      }
    }
    return this.takeLocal(key);
  }

  private takeLocal(key: string): ExportSlot | undefined {
    const running = this.local.get(key) ?? 0;
    if (running >= this.perCaller) return undefined;
    this.local.set(key, running + 1);
    let released = false;
    return {
      release: () => {
        if (!released) {
          released = true;
          const left = (this.local.get(key) ?? 1) - 1;
          if (left === 0) this.local.delete(key);
          else this.local.set(key, left);
        }
        return Promise.resolve();
      },
    };
  }
}
