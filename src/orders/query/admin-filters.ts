import { ForbiddenException } from '@nestjs/common';
import type { FieldError } from '../../common/problem/problem-details';
import { ADMIN_FILTERS, type AdminOrdersQueryDto } from '../dto/orders-query.dto';
import type { OrderFilters } from '../model';
import { toOrderStatusCode } from '../order-status';
import { boundsRows, parseEndBound, parseStartBound, startsAfterEnd } from './date-bound';
import { parameterNames } from './request-parameters';

/** A caller whose variant reads no filters (a member) and sent some is answered 403 naming every one, whatever
 * else is wrong with the request, the shape of its body included: 403 comes before 400. */
export function refuseFiltersOfMember(readsFilters: boolean, query: unknown, body: unknown): void {
  if (readsFilters) return;
  const names = parameterNames(query, body);
  const sent = ADMIN_FILTERS.filter((name) => names.has(name));
  if (sent.length > 0) throw new ForbiddenException(`Only administrators may filter by ${sent.join(', ')}`);
}

/** An administrator's filters, from values the DTO validated, adding to `errors` what only shows once values are
 * combined (an alias given twice, a start after the end) or read in the service's zone. */
export function adminFiltersOf(dto: AdminOrdersQueryDto, timeZone: string, errors: FieldError[]): OrderFilters {
  const invalid = new Set(errors.map((error) => error.field));
  const valid = <K extends keyof AdminOrdersQueryDto>(name: K): AdminOrdersQueryDto[K] | undefined =>
    invalid.has(name) ? undefined : dto[name];
  const filters: OrderFilters = {};

  filters.userId = valid('userId');
  const [consertId, concertId] = [valid('consertId'), valid('concertId')];
  if (consertId !== undefined && concertId !== undefined && consertId !== concertId) {
    errors.push({
      field: 'concertId',
      message: 'concertId is an alias of consertId; when both are given they must be equal',
    });
  }
  filters.concertId = consertId ?? concertId;
  const status = valid('orderStatus');
  filters.status = status === undefined ? undefined : toOrderStatusCode(status);

  const startText = valid('startDate');
  const endText = valid('endDate');
  const start = startText === undefined ? undefined : parseStartBound(startText, timeZone);
  const end = endText === undefined ? undefined : parseEndBound(endText, timeZone);
  if (start && !start.ok) errors.push({ field: 'startDate', message: `startDate ${start.message}` });
  if (end && !end.ok) errors.push({ field: 'endDate', message: `endDate ${end.message}` });
  if (start?.ok && end?.ok && startsAfterEnd(start, end)) {
    errors.push({ field: 'startDate', message: 'startDate must not be later than endDate' });
  }
  filters.createdFrom = start?.ok ? boundsRows.from(start.epochMs) : undefined;
  filters.createdBefore = end?.ok ? boundsRows.before(end.epochMs) : undefined;

  return Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined));
}
