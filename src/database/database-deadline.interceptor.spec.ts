import { describe, expect, it } from '@jest/globals';
import type { CallHandler, ExecutionContext } from '@nestjs/common';
import { firstValueFrom, NEVER, of, throwError, type Observable } from 'rxjs';
import { QueryFailedError } from 'typeorm';
import { toDatabaseConfig, type DatabaseConfig } from '../config/database.config';
import { validateEnvironment } from '../config/environment';
import { DatabaseDeadlineInterceptor } from './database-deadline.interceptor';
import { DatabaseUnavailableException } from './database-errors';

/** A MySQL configuration as the service reads it from the environment, with the deadline under test. */
const mysql = (queryTimeoutMs: number): DatabaseConfig =>
  toDatabaseConfig(
    validateEnvironment({ DB_TYPE: 'mysql', DB_POOL_SIZE: '1', DB_QUERY_TIMEOUT_MS: String(queryTimeoutMs) }),
  );

// The interceptor never looks at the context: every route gets the same deadline.
const context = {} as ExecutionContext;
const handlerReturning = (result: Observable<unknown>): CallHandler => ({ handle: () => result });

function outcomeOf(config: DatabaseConfig, result: Observable<unknown>): Promise<unknown> {
  return firstValueFrom(new DatabaseDeadlineInterceptor(config).intercept(context, handlerReturning(result)));
}

describe('DatabaseDeadlineInterceptor', () => {
  it('passes a result through', async () => {
    await expect(outcomeOf(mysql(1000), of('page'))).resolves.toBe('page');
  });

  it('turns a driver failure that means "not now" into a 503 with Retry-After, keeping the cause for the log', async () => {
    const refused = new QueryFailedError('SELECT 1', [], Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }));
    const error = await outcomeOf(
      mysql(1000),
      throwError(() => refused),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DatabaseUnavailableException);
    expect((error as DatabaseUnavailableException).problem).toMatchObject({
      status: 503,
      type: '/problems/database-unavailable',
      headers: { 'Retry-After': '5' },
      reason: 'database',
    });
    expect((error as DatabaseUnavailableException).cause).toBe(refused);
  });

  it('leaves any other failure alone (a 500)', async () => {
    const bug = new TypeError('x is undefined');
    await expect(
      outcomeOf(
        mysql(1000),
        throwError(() => bug),
      ),
    ).rejects.toBe(bug);
  });

  it('answers 503 when the handler has not answered by DB_QUERY_TIMEOUT_MS, with timeout as the reason', async () => {
    const error = await outcomeOf(mysql(100), NEVER).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DatabaseUnavailableException);
    expect((error as DatabaseUnavailableException).problem.reason).toBe('timeout');
  });
});
