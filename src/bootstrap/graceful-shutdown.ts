import type { INestApplication, LoggerService } from '@nestjs/common';
import type { Server } from 'node:http';

const POOL_CLOSE_ALLOWANCE_MS = 1000;

/**
 * CONTRACT §10: on SIGTERM (or SIGINT) stop accepting connections, let the
 * requests in flight finish for up to `graceMs`, cut whatever is still open
 * after that, close the database pool, and exit 0.
 */
export function shutDownGracefully(app: INestApplication, graceMs: number, logger: LoggerService): void {
  let stopping = false;
  const stop = async (signal: NodeJS.Signals): Promise<void> => {
    if (stopping) return;
    stopping = true;
    logger.log(`${signal} received; finishing the requests in flight (up to ${graceMs} ms)`, 'Shutdown');
    const server = app.getHttpServer() as Server;
    const deadline = setTimeout(() => {
      logger.warn('Grace period over; closing the connections still open', 'Shutdown');
      server.closeAllConnections();
      // The pool waits for the queries of the requests just cut; their results have nowhere to go.
      setTimeout(() => {
        logger.warn('Exiting without waiting for the database queries still running', 'Shutdown');
        process.exit(0);
      }, POOL_CLOSE_ALLOWANCE_MS).unref();
    }, graceMs);
    try {
      // Closes the HTTP server (which waits for responses in flight), then the modules: the pool last.
      await app.close();
      logger.log('Stopped', 'Shutdown');
      process.exit(0);
    } catch (error) {
      logger.error('Shutdown failed', error instanceof Error ? error.stack : String(error), 'Shutdown');
      process.exit(1);
    } finally {
      clearTimeout(deadline);
    }
  };
  process.once('SIGTERM', (signal) => void stop(signal));
  process.once('SIGINT', (signal) => void stop(signal));
}
