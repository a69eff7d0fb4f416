import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Caller } from '../auth/role';
import { bodyErrorOf } from '../common/deferred-json-body';
import type { ListOrdersRequest } from './query/list-orders-query.pipe';

/**
 * Gathers what the listing is parsed from (caller, query string, JSON body);
 * `ListOrdersQueryPipe` turns it into a query. Param decorators run after the
 * guards, so the caller is known by then.
 */
export const ListOrdersParameters = createParamDecorator((_: unknown, context: ExecutionContext): ListOrdersRequest => {
  const request = context.switchToHttp().getRequest<FastifyRequest & { user: Caller }>();
  return { caller: request.user, query: request.query, body: request.body, bodyError: bodyErrorOf(request) };
});
