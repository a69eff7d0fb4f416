import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AppConfig } from '../config/app.config';
import { APP_CONFIG } from '../config/config.module';
import { Metrics } from './metrics';

/** `GET /metrics` in Prometheus text format on METRICS_PORT: a listener of its own, so that metrics are never
 * exposed with the API. */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private server?: Server;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.metricsPort === 0) return;
    const { registry } = this.metrics;
    this.server = createServer((request, response) => {
      if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
        response.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found; metrics are at /metrics\n');
        return;
      }
      registry.metrics().then(
        (text) => response.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
        (error: unknown) => {
          this.logger.error('Collecting metrics failed', error instanceof Error ? error.stack : String(error));
          response.writeHead(500, { 'Content-Type': 'text/plain' }).end('Collecting metrics failed\n');
        },
      );
    });
    this.server.listen(this.config.metricsPort, '0.0.0.0');
    await once(this.server, 'listening');
    this.logger.log(`Metrics at http://0.0.0.0:${this.config.metricsPort}/metrics`);
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}
