import { Controller, Get, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Auth, CurrentCaller } from '../auth/auth.decorator';
import { Role, type Caller } from '../auth/role';
import { ListOrdersParameters } from './list-orders-request.decorator';
import { ApiListOrders } from './orders-api.decorator';
import { OrdersPage, OrdersService } from './orders.service';
import { buildLinkHeader } from './paging/link-header';
import type { ListOrdersQuery } from './query/list-orders-query';
import { ListOrdersQueryPipe } from './query/list-orders-query.pipe';

const ORDERS_PATH = '/orders';

@ApiTags('orders')
@Controller(ORDERS_PATH)
export class OrdersController {
  constructor(private readonly ordersService: OrdersService) {}

  @Get()
  @Auth(Role.User, Role.Admin)
  @ApiListOrders()
  async list(
    @CurrentCaller() caller: Caller,
    @ListOrdersParameters(ListOrdersQueryPipe) query: ListOrdersQuery,
    @Res({ passthrough: true }) response: FastifyReply,
  ): Promise<OrdersPage> {
    const page = await this.ordersService.list(caller, query);
    const link = buildLinkHeader(ORDERS_PATH, query.echoedParameters, page.currentPage, page.totalPages);
    if (link) void response.header('Link', link);
    return page;
  }
}
