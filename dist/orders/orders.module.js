"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.OrdersModule = void 0;
const common_1 = require("@nestjs/common");
const local_time_1 = require("../common/time/local-time");
const app_config_1 = require("../config/app.config");
const orders_controller_1 = require("./orders.controller");
const orders_repository_1 = require("./orders.repository");
const orders_service_1 = require("./orders.service");
const list_orders_query_pipe_1 = require("./query/list-orders-query.pipe");
let OrdersModule = class OrdersModule {
};
exports.OrdersModule = OrdersModule;
exports.OrdersModule = OrdersModule = __decorate([
    (0, common_1.Module)({
        controllers: [orders_controller_1.OrdersController],
        providers: [
            orders_service_1.OrdersService,
            orders_repository_1.OrdersRepository,
            list_orders_query_pipe_1.ListOrdersQueryPipe,
            {
                provide: local_time_1.LocalTimeFormatter,
                inject: [app_config_1.appConfig.KEY],
                useFactory: (config) => new local_time_1.LocalTimeFormatter(config.timeZone),
            },
        ],
        exports: [orders_repository_1.OrdersRepository],
    })
], OrdersModule);
//# sourceMappingURL=orders.module.js.map