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
Object.defineProperty(exports, "__esModule", { value: true });
exports.OrdersService = void 0;
const common_1 = require("@nestjs/common");
const role_1 = require("../auth/role");
const local_time_1 = require("../common/time/local-time");
const order_status_1 = require("./order-status");
const orders_repository_1 = require("./orders.repository");
const page_1 = require("./paging/page");
function groupSeats(seats) {
    const byOrder = new Map();
    for (const { orderId, seatPriceId, price } of seats) {
        const list = byOrder.get(orderId) ?? [];
        list.push({ seatPriceId, price });
        byOrder.set(orderId, list);
    }
    return byOrder;
}
let OrdersService = class OrdersService {
    orders;
    time;
    constructor(orders, time) {
        this.orders = orders;
        this.time = time;
    }
    async list(caller, query) {
        const isAdmin = caller.role === role_1.Role.Admin;
        const filters = isAdmin ? query.filters : { userId: caller.id };
        const offset = (query.page - 1) * query.size;
        const rows = await this.orders.findPage(filters, query.sort, query.size, offset);
        const [total, seats] = await Promise.all([
            this.countMatching(filters, rows.length, offset, query.size),
            this.orders.findSeats(rows.map((row) => row.id)),
        ]);
        const seatsByOrder = groupSeats(seats);
        const elements = rows.map((row) => isAdmin
            ? this.toAdminOrder(row, seatsByOrder.get(row.id) ?? [])
            : this.toUserOrder(row, seatsByOrder.get(row.id) ?? []));
        return (0, page_1.buildPage)(elements, total, query.page, query.size);
    }
    countMatching(filters, rowCount, offset, size) {
        if (rowCount > 0 && rowCount < size)
            return Promise.resolve(offset + rowCount);
        if (rowCount === 0 && offset === 0)
            return Promise.resolve(0);
        return this.orders.count(filters);
    }
    toUserOrder(row, seats) {
        return {
            orderId: row.id,
            concertId: row.concertId,
            seats,
            totalPrice: row.totalPrice,
            status: (0, order_status_1.orderStatusLabel)(row.status),
            createdAt: this.time.format((0, local_time_1.storedDateTimeToEpochMs)(row.createdAt)),
            updatedAt: this.time.format((0, local_time_1.storedDateTimeToEpochMs)(row.updatedAt)),
        };
    }
    toAdminOrder(row, seats) {
        return {
            orderId: row.id,
            userId: row.userId,
            concertId: row.concertId,
            seats,
            totalPrice: row.totalPrice,
            status: (0, order_status_1.orderStatusLabel)(row.status),
            createdAt: this.time.format((0, local_time_1.storedDateTimeToEpochMs)(row.createdAt)),
            updatedAt: this.time.format((0, local_time_1.storedDateTimeToEpochMs)(row.updatedAt)),
        };
    }
};
exports.OrdersService = OrdersService;
exports.OrdersService = OrdersService = __decorate([
    (0, common_1.Injectable)(),
    __metadata("design:paramtypes", [orders_repository_1.OrdersRepository,
        local_time_1.LocalTimeFormatter])
], OrdersService);
//# sourceMappingURL=orders.service.js.map