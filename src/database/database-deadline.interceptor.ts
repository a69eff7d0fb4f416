import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { Observable, throwError, timeout } from 'rxjs';
import { databaseConfig } from '../config/database.config';
import { DatabaseDeadlineExceeded } from './database-errors';

/**
 * CONTRACT §10: a request waiting on the database answers 503 within
 * DB_QUERY_TIMEOUT_MS, however many statements it runs and however long it
 * queues for a connection. The driver's own per-query timeout then ends the
 * abandoned query and frees its connection.
 */
@Injectable()
export class DatabaseDeadlineInterceptor implements NestInterceptor {
  private readonly deadlineMs?: number;

  constructor(@Inject(databaseConfig.KEY) config: ConfigType<typeof databaseConfig>) {
    // The embedded database runs in-process and cannot hang on a network.
    this.deadlineMs = config.type === 'mysql' ? config.queryTimeoutMs : undefined;
  }

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const deadlineMs = this.deadlineMs;
    if (deadlineMs === undefined) return next.handle();
    return next
      .handle()
      .pipe(timeout({ first: deadlineMs, with: () => throwError(() => new DatabaseDeadlineExceeded(deadlineMs)) }));
  }
}
