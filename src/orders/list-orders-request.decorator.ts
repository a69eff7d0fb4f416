import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { callerOf } from '../auth/token-verdict';
import { exportFormatOf } from './export/export-format';
import type { ListOrdersRequest } from './query/list-orders-query.pipe';

/**
 * Gathers what the listing is parsed from (caller, query string, JSON body, and whether `Accept` asks for an export);
 * `ListOrdersQueryPipe` turns it into a query. Param decorators run after the
 * guards, so the caller is known by then.
 */
export const ListOrdersParameters = createParamDecorator((_: unknown, context: ExecutionContext): ListOrdersRequest => {
  const request = context.switchToHttp().getRequest<FastifyRequest>();
  const caller = callerOf(request.tokenVerdict);
  if (!caller) throw new Error('ListOrdersParameters used on a route without @Auth');
  return {
    caller,
    query: request.query,
    body: request.body,
    bodyError: request.bodyError,
    exportFormat: exportFormatOf(request.headers.accept),
  };
});
