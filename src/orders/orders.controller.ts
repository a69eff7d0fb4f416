import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Auth, CurrentCaller } from '../auth/auth.decorator';
import { Role, type Caller } from '../auth/role';
import { sendConditionally } from '../common/conditional-response';
import { ListOrdersParameters } from './list-orders-request.decorator';
import { ApiListOrders } from './orders-api.decorator';
import { OrdersService } from './orders.service';
import { buildLinkHeader } from './paging/link-header';
import type { ListOrdersQuery } from './query/list-orders-query';
import { ListOrdersQueryPipe } from './query/list-orders-query.pipe';

const ORDERS_PATH = '/orders';

@ApiTags('orders')
@Controller(ORDERS_PATH)
export class OrdersController {
  constructor(private readonly ordersService: OrdersService) {}

  /** The page is serialized here, not by Fastify, because its entity tag is derived from the bytes sent. */
  @Get()
  @Auth(Role.User, Role.Admin)
  @ApiListOrders()
  async list(
    @CurrentCaller() caller: Caller,
    @ListOrdersParameters(ListOrdersQueryPipe) query: ListOrdersQuery,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const page = await this.ordersService.list(caller, query);
    const link = buildLinkHeader(ORDERS_PATH, query.echoedParameters, page.currentPage, page.totalPages);
    if (link) void reply.header('Link', link);
    void sendConditionally(request, reply, JSON.stringify(page));
  }
}
