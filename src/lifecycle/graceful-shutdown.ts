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

/**
 * docs/API.md §10, on top of Nest's shutdown hooks (`enableShutdownHooks` in
 * main.ts), which on SIGTERM close the HTTP server (it stops accepting and
 * waits for the responses in flight), then the modules, the pool last, and
 * exit 0. Before that, readiness answers 503 at once while everything else is
 * still served for SHUTDOWN_DELAY_MS, so that load balancers stop routing
 * here first; after it, requests still running past SHUTDOWN_GRACE_MS have
 * their connections cut.
 */
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
