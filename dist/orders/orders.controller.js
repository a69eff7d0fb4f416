"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
var __metadata = (this && this.__metadata) || function (k, v) {
    if (typeof Reflect === "object" && typeof Reflect.metadata === "function") return Reflect.metadata(k, v);
};
var __param = (this && this.__param) || function (paramIndex, decorator) {
    return function (target, key) { decorator(target, key, paramIndex); }
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.OrdersController = void 0;
const openapi = require("@nestjs/swagger");
const common_1 = require("@nestjs/common");
const swagger_1 = require("@nestjs/swagger");
const auth_decorator_1 = require("../auth/auth.decorator");
const role_1 = require("../auth/role");
const order_dto_1 = require("./dto/order.dto");
const list_orders_request_decorator_1 = require("./list-orders-request.decorator");
const orders_service_1 = require("./orders.service");
const link_header_1 = require("./paging/link-header");
const list_orders_query_pipe_1 = require("./query/list-orders-query.pipe");
const ORDERS_PATH = '/orders';
let OrdersController = class OrdersController {
    ordersService;
    constructor(ordersService) {
        this.ordersService = ordersService;
    }
    async list(caller, query, response) {
        const page = await this.ordersService.list(caller, query);
        const link = (0, link_header_1.buildLinkHeader)(ORDERS_PATH, query.echoedParameters, page.currentPage, page.totalPages);
        if (link)
            response.setHeader('Link', link);
        return page;
    }
};
exports.OrdersController = OrdersController;
__decorate([
    (0, common_1.Get)(),
    (0, auth_decorator_1.Auth)(role_1.Role.User, role_1.Role.Admin),
    (0, swagger_1.ApiOperation)({
        summary: 'List orders, a page at a time',
        description: 'The role in the access token picks the variant: USER lists the caller’s own orders without userId; ADMIN lists every order, with userId, and may filter.',
    }),
    (0, swagger_1.ApiOkResponse)({ description: 'A page of orders.' }),
    __param(0, (0, auth_decorator_1.CurrentCaller)()),
    __param(1, (0, list_orders_request_decorator_1.ListOrdersParameters)(list_orders_query_pipe_1.ListOrdersQueryPipe)),
    __param(2, (0, common_1.Res)({ passthrough: true })),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [Object, Object, Object]),
    __metadata("design:returntype", Promise)
], OrdersController.prototype, "list", null);
exports.OrdersController = OrdersController = __decorate([
    (0, swagger_1.ApiTags)('orders'),
    (0, swagger_1.ApiExtraModels)(order_dto_1.UserOrderDto, order_dto_1.AdminOrderDto, order_dto_1.SeatDto),
    (0, common_1.Controller)(ORDERS_PATH),
    __metadata("design:paramtypes", [orders_service_1.OrdersService])
], OrdersController);
//# sourceMappingURL=orders.controller.js.map