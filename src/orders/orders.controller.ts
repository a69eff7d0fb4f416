import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Auth, CurrentCaller } from '../auth/auth.decorator';
import { Role, type Caller } from '../auth/role';
import { sendConditionally } from '../common/conditional-response';
import { DATA_STALENESS_HEADER, dataStalenessOf } from '../common/data-staleness';
import { noteAccess, noteHandedOver } from './access-parameters';
import { OrderExports } from './export/order-exports';
import { ExportParameters, PageParameters } from './list-orders-request.decorator';
import { ApiExportOrders, ApiListOrders } from './orders-api.decorator';
import { pageJsonOf } from './page-json';
import { OrdersService } from './orders.service';
import { ContinuationTokens } from './paging/continuation';
import { linkHeader, pageLinks } from './paging/link-header';
import type { ListOrdersQuery } from './query/list-orders-query';

const ORDERS_PATH = '/orders';

@ApiTags('orders')
@Controller(ORDERS_PATH)
export class OrdersController {
  constructor(
    private readonly ordersService: OrdersService,
    private readonly continuations: ContinuationTokens,
    private readonly exports: OrderExports,
  ) {}

  /** A page. It is serialized here, not by Fastify, because its entity tag is derived from the bytes sent. */
  @Get()
  @Auth(Role.User, Role.Admin)
  @ApiListOrders()
  async list(
    @PageParameters() query: ListOrdersQuery,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    if (query.variant.othersOrders) noteAccess(request, query);
    const { page, continuation, walk, behindSeconds } = await this.ordersService.list(query);
    if (query.variant.othersOrders) noteHandedOver(request, page.elements);
    const links = pageLinks(page.currentPage, page.totalPages, walk).map((link) => ({
      ...link,
      token:
        link.direction &&
        continuation &&
        this.continuations.write(continuation[link.direction], link.page, query.walkScope),
    }));
    const link = linkHeader(ORDERS_PATH, query.echoedParameters, links);
    if (link) void reply.header('Link', link);
    if (behindSeconds !== undefined) void reply.header(DATA_STALENESS_HEADER, dataStalenessOf(behindSeconds));
    void sendConditionally(request, reply, pageJsonOf(query.variant.element)(page));
  }

  /** Every matching order as CSV, streamed. */
  @Get('export.csv')
  @Auth(Role.User, Role.Admin)
  @ApiExportOrders('csv')
  exportCsv(
    @CurrentCaller() caller: Caller,
    @ExportParameters('csv') query: ListOrdersQuery,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.exports.send(caller, query, 'csv', request, reply);
  }

  /** Every matching order as NDJSON, streamed, ending with a line that says the export is complete. */
  @Get('export.ndjson')
  @Auth(Role.User, Role.Admin)
  @ApiExportOrders('ndjson')
  exportNdjson(
    @CurrentCaller() caller: Caller,
    @ExportParameters('ndjson') query: ListOrdersQuery,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.exports.send(caller, query, 'ndjson', request, reply);
  }

  /** Every matching order as an Excel workbook, streamed. */
  @Get('export.xlsx')
  @Auth(Role.User, Role.Admin)
  @ApiExportOrders('xlsx')
  exportXlsx(
    @CurrentCaller() caller: Caller,
    @ExportParameters('xlsx') query: ListOrdersQuery,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.exports.send(caller, query, 'xlsx', request, reply);
  }
}
