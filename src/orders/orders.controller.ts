import { Controller, Get, Res } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Auth, CurrentCaller } from '../auth/auth.decorator';
import { Role, type Caller } from '../auth/role';
import { AdminOrderDto, SeatDto, UserOrderDto } from './dto/order.dto';
import { ListOrdersParameters } from './list-orders-request.decorator';
import { OrdersPage, OrdersService } from './orders.service';
import { buildLinkHeader } from './paging/link-header';
import type { ListOrdersQuery } from './query/list-orders-query';
import { ListOrdersQueryPipe } from './query/list-orders-query.pipe';

const ORDERS_PATH = '/orders';

@ApiTags('orders')
@ApiExtraModels(UserOrderDto, AdminOrderDto, SeatDto)
@Controller(ORDERS_PATH)
export class OrdersController {
  constructor(private readonly ordersService: OrdersService) {}

  @Get()
  @Auth(Role.User, Role.Admin)
  @ApiOperation({
    summary: 'List orders, a page at a time',
    description:
      'The role in the access token picks the variant: USER lists the caller’s own orders without userId; ADMIN lists every order, with userId, and may filter.',
  })
  @ApiOkResponse({ description: 'A page of orders.' })
  async list(
    @CurrentCaller() caller: Caller,
    @ListOrdersParameters(ListOrdersQueryPipe) query: ListOrdersQuery,
    @Res({ passthrough: true }) response: Response,
  ): Promise<OrdersPage> {
    const page = await this.ordersService.list(caller, query);
    const link = buildLinkHeader(ORDERS_PATH, query.echoedParameters, page.currentPage, page.totalPages);
    if (link) response.setHeader('Link', link);
    return page;
  }
}
