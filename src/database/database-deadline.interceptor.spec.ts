import { describe, expect, it } from '@jest/globals';
import type { CallHandler, ExecutionContext } from '@nestjs/common';
import { firstValueFrom, NEVER, of, throwError, type Observable } from 'rxjs';
import { QueryFailedError } from 'typeorm';
import type { DatabaseConfig } from '../config/database.config';
import { DatabaseDeadlineInterceptor } from './database-deadline.interceptor';
import { DatabaseUnavailableException } from './database-errors';

const mysql = (queryTimeoutMs: number): DatabaseConfig => ({
  type: 'mysql',
  host: '127.0.0.1',
  port: 3306,
  username: 'orders',
  password: '',
  database: 'orders',
  poolSize: 1,
  queryTimeoutMs,
});
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
