import { InvalidParametersException } from '../common/problem/invalid-parameters.exception';
import { ProblemException, problemOf } from '../common/problem/problem-details';
import { READ_AFTER_GTID_HEADER } from '../common/read-after-gtid';
import { LostPositionError, MalformedPositionError, UncommittedPositionError } from '../database/freshness';
import { NoCapableServerException } from '../database/server-choice';
import { PageOutOfReachError, TooManyToSortError } from './orders.repository';
import type { ListOrdersQuery } from './query/list-orders-query';
import { tooBroadDetail, tooManyToSortDetail } from './too-broad';

/** A page by number too far from both ends to pass in time: how far, the most, and the ways to its orders. */
function outOfReach(query: ListOrdersQuery, { total, passed, most }: PageOutOfReachError): ProblemException {
  const count = (value: number) => value.toLocaleString('en-US');
  const { field, direction } = query.sort[0];
  const opposite = direction === 'ASC' ? 'desc' : 'asc';
  const pages = Math.ceil(total / query.size);
  return new ProblemException(
    problemOf('pageOutOfReach', {
      detail:
        `Page ${count(query.page)} of ${count(pages)} by ${field} lies ${count(passed)} orders from the nearer end ` +
        `of this listing, more than a server passes in time (at most ${count(most)}). Follow the Link header's next ` +
        `or prev links from a nearer page, sort by ${field},${opposite} so that these orders come near the start, or ` +
        'narrow the filters (a date range, a status, a userId or consertId).',
    }),
  );
}

/** What a listing that could not be read is told: a client's mistake, or a shape no serving server answers within
 * bounds, refused before its page is read and saying what would be; any other failure as it is. */
export function refusalOf(error: unknown, query: ListOrdersQuery): unknown {
  const { filters, sort } = query;
  if (error instanceof MalformedPositionError || error instanceof UncommittedPositionError) {
    // A position of another kind of server, or one no commit has reached, is the client's mistake.
    return new InvalidParametersException([
      { field: READ_AFTER_GTID_HEADER, message: `${READ_AFTER_GTID_HEADER} is ${error.message}` },
    ]);
  }
  if (error instanceof LostPositionError) {
    const errors = [{ field: READ_AFTER_GTID_HEADER, message: `${READ_AFTER_GTID_HEADER} names ${error.message}` }];
    return new ProblemException(problemOf('writeLost', { errors }), { cause: error });
  }
  if (error instanceof TooManyToSortError) {
    const detail = tooManyToSortDetail(sort, error.sortedWhole, error.maxSortedWhole);
    return new ProblemException(problemOf('queryTooBroad', { detail }));
  }
  if (error instanceof PageOutOfReachError) return outOfReach(query, error);
  return error instanceof NoCapableServerException
    ? new ProblemException(problemOf('queryTooBroad', { detail: tooBroadDetail(filters, sort) }), { cause: error })
    : error;
}
