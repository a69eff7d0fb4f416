import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Auth, CurrentCaller } from '../auth/auth.decorator';
import { Role, type Caller } from '../auth/role';
import { sendConditionally } from '../common/conditional-response';
import { OrderExports } from './export/order-exports';
import { ListOrdersParameters } from './list-orders-request.decorator';
import { ApiListOrders } from './orders-api.decorator';
import { OrdersService } from './orders.service';
import { ContinuationTokens } from './paging/continuation';
import { buildLinkHeader, type ContinuationWriter } from './paging/link-header';
import type { ListOrdersQuery } from './query/list-orders-query';
import { ListOrdersQueryPipe } from './query/list-orders-query.pipe';

const ORDERS_PATH = '/orders';

@ApiTags('orders')
@Controller(ORDERS_PATH)
export class OrdersController {
  constructor(
    private readonly ordersService: OrdersService,
    private readonly continuations: ContinuationTokens,
    private readonly exports: OrderExports,
  ) {}

  /**
   * A page, or with `Accept: text/csv` or `application/x-ndjson` an export of every matching order. The page
   * is serialized here, not by Fastify, because its entity tag is derived from the bytes sent.
   */
  @Get()
  @Auth(Role.User, Role.Admin)
  @ApiListOrders()
  async list(
    @CurrentCaller() caller: Caller,
    @ListOrdersParameters(ListOrdersQueryPipe) query: ListOrdersQuery,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    // What is answered depends on Accept, so caches must tell the representations apart.
    const vary = reply.getHeader('Vary');
    void reply.header('Vary', vary ? `${String(vary)}, Accept` : 'Accept');
    if (query.exportFormat) return this.exports.send(caller, query, query.exportFormat, request, reply);
    const { page, boundaries, walk } = await this.ordersService.list(caller, query);
    // `next` continues after the page's last element, `prev` before its first, both within the walk's bound.
    const continuation: ContinuationWriter | undefined =
      boundaries &&
      ((direction, targetPage) =>
        this.continuations.write(
          { direction, key: direction === 'after' ? boundaries.last : boundaries.first, bound: boundaries.bound },
          targetPage,
          query.walkScope(),
        ));
    const link = buildLinkHeader(
      ORDERS_PATH,
      query.echoedParameters,
      page.currentPage,
      page.totalPages,
      continuation,
      walk,
    );
    if (link) void reply.header('Link', link);
    void sendConditionally(request, reply, JSON.stringify(page));
  }
}
