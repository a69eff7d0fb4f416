import {
  BeforeApplicationShutdown,
  Global,
  Inject,
  Injectable,
  Logger,
  Module,
  OnApplicationShutdown,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { problemOf, ProblemException } from '../common/problem/problem-details';
import type { AppConfig } from '../config/app.config';
import { APP_CONFIG } from '../config/config.module';

/** After the grace period, how long the pool may take to close before the process exits regardless. */
const POOL_CLOSE_ALLOWANCE_MS = 1000;

/** Readiness while this instance shuts down: balancers should send its traffic elsewhere. */
export class ShuttingDownException extends ProblemException {
  constructor() {
    super(problemOf('shuttingDown'));
  }
}

/** Before Nest's shutdown hooks close the server, readiness answers 503 while everything else is served for
 * SHUTDOWN_DELAY_MS, so balancers stop routing here first; past SHUTDOWN_GRACE_MS, connections are cut. */
@Injectable()
export class GracefulShutdown implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('Shutdown');
  private draining = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  /** True from the signal on: `/health/ready` answers 503. */
  isDraining(): boolean {
    return this.draining;
  }

  async beforeApplicationShutdown(signal?: string): Promise<void> {
    // Without a signal the application is being closed by code (tests), which waits as long as it likes.
    if (!signal) return;
    this.draining = true;
    const { shutdownDelayMs: delayMs, shutdownGraceMs: graceMs } = this.config;
    this.logger.log(
      `${signal} received; readiness answers 503, serving for ${delayMs} ms, then finishing the requests in flight (up to ${graceMs} ms)`,
    );
    await sleep(delayMs);
    const server = this.adapterHost.httpAdapter.getHttpServer() as Server;
    setTimeout(() => {
      this.logger.warn('Grace period over; closing the connections still open');
      server.closeAllConnections();
      // The pool waits for the statements of the requests just cut; their results have nowhere to go.
      setTimeout(() => {
        this.logger.warn('Exiting without waiting for the database statements still running');
        process.exit(0);
      }, POOL_CLOSE_ALLOWANCE_MS).unref();
    }, graceMs).unref();
  }

  onApplicationShutdown(signal?: string): void {
    if (signal) this.logger.log('Stopped');
  }
}

/** The shutdown sequence, for readiness to consult. */
@Global()
@Module({ providers: [GracefulShutdown], exports: [GracefulShutdown] })
export class LifecycleModule {}
