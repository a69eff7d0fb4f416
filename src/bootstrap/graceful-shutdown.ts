import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Server } from 'node:http';
import type { AppConfig } from '../config/app.config';
import { APP_CONFIG } from '../config/config.module';

/** After the grace period, how long the pool may take to close before the process exits regardless. */
const POOL_CLOSE_ALLOWANCE_MS = 1000;

/**
 * CONTRACT §10, on top of Nest's shutdown hooks (`enableShutdownHooks` in
 * main.ts), which on SIGTERM close the HTTP server (it stops accepting and
 * waits for the responses in flight), then the modules, the pool last, and
 * exit 0. What Nest does not do is bound that wait: requests still running
 * after SHUTDOWN_GRACE_MS have their connections cut.
 */
@Injectable()
export class GracefulShutdown implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('Shutdown');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  beforeApplicationShutdown(signal?: string): void {
    // Without a signal the application is being closed by code (tests), which waits as long as it likes.
    if (!signal) return;
    const graceMs = this.config.shutdownGraceMs;
    this.logger.log(`${signal} received; finishing the requests in flight (up to ${graceMs} ms)`);
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
