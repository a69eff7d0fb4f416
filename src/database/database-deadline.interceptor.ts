import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import { catchError, Observable, throwError, timeout } from 'rxjs';
import { DATABASE_CONFIG } from '../config/config.module';
import type { DatabaseConfig } from '../config/database.config';
import { DatabaseUnavailableException, isDatabaseUnavailable } from './database-errors';

/**
 * CONTRACT §10: a request waiting on the database answers 503 within
 * DB_QUERY_TIMEOUT_MS, however many statements it runs and however long it
 * queues for a connection; the driver's own per-query timeout then ends the
 * abandoned statement and frees its connection. Driver failures that mean
 * "not now" become the same 503; anything else stays a 500.
 */
@Injectable()
export class DatabaseDeadlineInterceptor implements NestInterceptor {
  private readonly deadlineMs?: number;

  constructor(@Inject(DATABASE_CONFIG) config: DatabaseConfig) {
    // The embedded database runs in-process and cannot hang on a network.
    this.deadlineMs = config.type === 'mysql' ? config.queryTimeoutMs : undefined;
  }

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const deadlineMs = this.deadlineMs;
    const handled = next
      .handle()
      .pipe(
        catchError((error: unknown) =>
          throwError(() => (isDatabaseUnavailable(error) ? new DatabaseUnavailableException(error) : error)),
        ),
      );
    if (deadlineMs === undefined) return handled;
    return handled.pipe(
      timeout({
        first: deadlineMs,
        with: () =>
          throwError(
            () =>
              new DatabaseUnavailableException(
                new Error(`The database did not answer within ${deadlineMs} ms`),
                'timeout',
              ),
          ),
      }),
    );
  }
}
