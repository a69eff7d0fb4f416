import { describe, expect, it } from '@jest/globals';
import { QueryFailedError } from 'typeorm';
import { isDatabaseUnavailable } from './database-errors';

const driverError = (fields: Record<string, unknown>): Error =>
  Object.assign(new Error('driver said something'), fields);

describe('isDatabaseUnavailable', () => {
  it.each(['ECONNREFUSED', 'ECONNRESET', 'PROTOCOL_CONNECTION_LOST', 'ER_CON_COUNT_ERROR', 'ER_STATEMENT_TIMEOUT'])(
    'is true for the driver code %s, directly or wrapped by TypeORM',
    (code) => {
      expect(isDatabaseUnavailable(driverError({ code }))).toBe(true);
      expect(isDatabaseUnavailable(new QueryFailedError('SELECT 1', [], driverError({ code })))).toBe(true);
    },
  );

  it('is true for any error the driver marks fatal (the connection is gone)', () => {
    expect(isDatabaseUnavailable(driverError({ code: 'UNKNOWN', fatal: true }))).toBe(true);
  });

  it('is false for a query the server rejects as wrong, which retrying will not fix', () => {
    expect(isDatabaseUnavailable(new QueryFailedError('SELEC 1', [], driverError({ code: 'ER_PARSE_ERROR' })))).toBe(
      false,
    );
  });

  it('is false for errors that do not come from the database', () => {
    expect(isDatabaseUnavailable(new TypeError('x'))).toBe(false);
    expect(isDatabaseUnavailable('ECONNREFUSED')).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
  });
});
