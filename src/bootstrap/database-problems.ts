import { problemOf, type Problem } from '../common/problem/problem-details';
import { DatabaseSaturatedError, DatabaseUnavailableError } from '../database/database-errors';
import { ReplicasBehindError } from '../database/server-choice';

/** The database layer's refusals as HTTP answers: 503s that say why and when to retry. */
export function databaseProblemOf(error: unknown): Problem | undefined {
  if (error instanceof DatabaseUnavailableError)
    return problemOf(error.timedOut ? 'databaseTimeout' : 'databaseUnavailable');
  if (error instanceof DatabaseSaturatedError) return problemOf('serviceBusy');
  if (error instanceof ReplicasBehindError) {
    return problemOf('replicasBehind', {
      detail:
        error.behindSeconds === undefined
          ? 'Only a read replica can serve this sort and filter, and none that can is answering with a known lag; try again shortly'
          : `Only a read replica can serve this sort and filter, and the least behind of those that can is ${Math.ceil(error.behindSeconds)} s behind the primary, past DB_REPLICA_MAX_STALENESS_S=${error.maxStalenessSeconds}; try again shortly`,
    });
  }
  return undefined;
}
