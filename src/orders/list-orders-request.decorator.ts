import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { callerOf } from '../auth/token-verdict';
import { ProblemException, problemOf } from '../common/problem/problem-details';
import { READ_AFTER_GTID_HEADER } from '../common/read-after-gtid';
import { acceptsOnlyExports } from './export/export-format';
import { listingVariantOf } from './listing-variant';
import { refuseFiltersOfMember } from './query/admin-filters';
import { ListOrdersQueryPipe, type ListOrdersRequest } from './query/list-orders-query.pipe';
import type { ExportFormat } from './model';

/** The listing's edge, after the guards and before the pipe: the caller's variant, 406 for a page whose `Accept` admits
 * only an export, 403 for a member's filters, and the raw parameters the pipe parses. */
const listOrdersRequest = createParamDecorator(
  (format: ExportFormat | undefined, context: ExecutionContext): ListOrdersRequest => {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const caller = callerOf(request.tokenVerdict);
    if (!caller) throw new Error('The listing parameters are used on a route without @Auth');
    if (!format) {
      // A page is refused (406) for an Accept that admits only an export: caches must tell requests apart by it.
      const reply = context.switchToHttp().getResponse<FastifyReply>();
      const vary = reply.getHeader('Vary');
      void reply.header('Vary', vary ? `${String(vary)}, Accept` : 'Accept');
      if (acceptsOnlyExports(request.headers.accept)) throw new ProblemException(problemOf('exportOnlyAccepted'));
    }
    const variant = listingVariantOf(caller);
    // A body that could not be read has no parameters to name; its 400 comes after this 403.
    refuseFiltersOfMember(variant.readsFilters, request.query, request.bodyError ? undefined : request.body);
    return {
      variant,
      query: request.query,
      body: request.body,
      bodyError: request.bodyError,
      exportFormat: format,
      readAfterGtid: request.headers[READ_AFTER_GTID_HEADER.toLowerCase()],
    };
  },
);

/** A page's parameters, validated (`GET /orders`). */
export const PageParameters = (): ParameterDecorator => listOrdersRequest(undefined, ListOrdersQueryPipe);

/** An export's parameters, validated: the page's, less those of paging (`GET /orders/export.csv`, …). */
export const ExportParameters = (format: ExportFormat): ParameterDecorator =>
  listOrdersRequest(format, ListOrdersQueryPipe);
