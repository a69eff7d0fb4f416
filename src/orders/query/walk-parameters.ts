import { InvalidParametersException } from '../../common/problem/invalid-parameters.exception';
import { CONTINUATION_PARAMETERS, type UserOrdersQueryDto } from '../dto/orders-query.dto';
import type { OrderFilters, KeysetCursor, SortKey } from '../model';
import { ProblemException, problemOf } from '../../common/problem/problem-details';
import type { ContinuationTokens } from '../paging/continuation';
import { toQueryValues, type RequestParameters } from './request-parameters';
import { DEFAULT_SORT } from './sort';

/** What a walk is: who may follow it (a member's own orders, or an administrator's view), the filters, the sort
 * and the size. */
export function walkScopeOf(walkOwner: string, filters: OrderFilters, sort: SortKey[], size: number): string {
  const { userId, concertId, status, createdFrom, createdBefore } = filters;
  return JSON.stringify([walkOwner, userId, concertId, status, createdFrom, createdBefore, sort, size]);
}

/** The continuation sent, checked against the rest of the request; a 400 naming it when the service did not write
 * it for this one. */
export function cursorOf(
  continuations: ContinuationTokens,
  dto: UserOrdersQueryDto,
  page: number,
  scope: string,
  sort: SortKey[],
  earlierScope?: () => string,
): KeysetCursor | undefined {
  if (dto.after !== undefined && dto.before !== undefined) {
    throw new InvalidParametersException([
      { field: 'before', message: 'after and before continue a walk in opposite directions; send one of them' },
    ]);
  }
  const direction = dto.after !== undefined ? 'after' : dto.before !== undefined ? 'before' : undefined;
  if (direction === undefined) return undefined;
  const token = dto[direction] ?? '';
  const cursor = continuations.read(token, direction, page, scope, sort);
  // Written before 3.0.0, when the tie-break of this sort ran the other way: no page of the new order follows it.
  if (!cursor && earlierScope && continuations.read(token, direction, page, earlierScope(), sort)) {
    throw new ProblemException(problemOf('continuationOutdated'));
  }
  if (!cursor) {
    throw new InvalidParametersException([
      {
        field: direction,
        message: `${direction} was not written by this service for this request: follow the Link header's targets as they are, changing none of their parameters`,
      },
    ]);
  }
  return cursor;
}

const NOT_ECHOED: ReadonlySet<string> = new Set(['page', 'size', 'sort', ...CONTINUATION_PARAMETERS]);

/** Every parameter of the request but `page` and the continuations, written as a query string would carry it, with the size and sort in effect. */
export function echoedParametersOf(parameters: RequestParameters['values'], size: number): Array<[string, string]> {
  const echoed: Array<[string, string]> = [['size', String(size)]];
  const sort = parameters.has('sort') ? toQueryValues(parameters.get('sort')) : [DEFAULT_SORT];
  echoed.push(...sort.map((term): [string, string] => ['sort', term]));
  for (const [name, value] of parameters) {
    if (!NOT_ECHOED.has(name)) {
      echoed.push(...toQueryValues(value).map((text): [string, string] => [name, text]));
    }
  }
  return echoed;
}
