import { describe, expect, it } from '@jest/globals';
import { DatabaseSaturatedError, DatabaseUnavailableError } from '../database/database-errors';
import { ReplicasBehindError } from '../database/server-choice';
import { databaseProblemOf } from './database-problems';

describe('databaseProblemOf', () => {
  it('answers an unavailable database 503 with Retry-After 5, a deadline passed counted apart', () => {
    expect(databaseProblemOf(new DatabaseUnavailableError(new Error('ECONNREFUSED')))).toMatchObject({
      status: 503,
      type: '/problems/database-unavailable',
      headers: { 'Retry-After': '5' },
      reason: 'database',
    });
    expect(databaseProblemOf(new DatabaseUnavailableError(new Error('deadline'), true))).toMatchObject({
      type: '/problems/database-unavailable',
      reason: 'timeout',
    });
  });

  it('answers a saturated pool as busy, with Retry-After 1', () => {
    expect(databaseProblemOf(new DatabaseSaturatedError())).toMatchObject({
      status: 503,
      type: '/problems/service-busy',
      headers: { 'Retry-After': '1' },
      reason: 'saturated',
    });
  });

  it('names how far behind the least behind replica is, or that none answers', () => {
    expect(databaseProblemOf(new ReplicasBehindError(60.2, 60))).toMatchObject({
      status: 503,
      type: '/problems/replicas-behind',
      detail: expect.stringContaining('61 s behind the primary, past DB_REPLICA_MAX_STALENESS_S=60'),
      headers: { 'Retry-After': '5' },
      reason: 'replica-behind',
    });
    expect(databaseProblemOf(new ReplicasBehindError(undefined, 60))?.detail).toContain('none that can is answering');
  });

  it('leaves every other error to the filter', () => {
    expect(databaseProblemOf(new Error('anything else'))).toBeUndefined();
  });
});
