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
exports.OrdersRepository = void 0;
const common_1 = require("@nestjs/common");
const typeorm_1 = require("@nestjs/typeorm");
const typeorm_2 = require("typeorm");
const local_time_1 = require("../common/time/local-time");
const order_seat_entity_1 = require("./order-seat.entity");
const order_entity_1 = require("./order.entity");
const SORT_COLUMNS = {
    orderId: 'id',
    userId: 'userId',
    concertId: 'concertId',
    totalPrice: 'totalPrice',
    status: 'status',
    createdAt: 'createdAt',
    updatedAt: 'updatedAt',
};
let OrdersRepository = class OrdersRepository {
    dataSource;
    constructor(dataSource) {
        this.dataSource = dataSource;
    }
    async findPage(filters, sort, limit, offset) {
        const query = this.matching(filters)
            .select('o.id', 'id')
            .addSelect('o.userId', 'userId')
            .addSelect('o.concertId', 'concertId')
            .addSelect('o.totalPrice', 'totalPrice')
            .addSelect('o.status', 'status')
            .addSelect('o.createdAt', 'createdAt')
            .addSelect('o.updatedAt', 'updatedAt')
            .limit(limit)
            .offset(offset);
        for (const { field, direction } of sort) {
            query.addOrderBy(`o.${SORT_COLUMNS[field]}`, direction);
        }
        return query.getRawMany();
    }
    async count(filters) {
        const row = await this.matching(filters).select('COUNT(*)', 'total').getRawOne();
        return Number(row?.total ?? 0);
    }
    async findSeats(orderIds) {
        if (orderIds.length === 0)
            return [];
        return this.dataSource
            .createQueryBuilder(order_seat_entity_1.OrderSeat, 's')
            .select('s.orderId', 'orderId')
            .addSelect('s.seatPriceId', 'seatPriceId')
            .addSelect('s.price', 'price')
            .where('s.orderId IN (:...orderIds)', { orderIds })
            .orderBy('s.orderId', 'ASC')
            .addOrderBy('s.seatPriceId', 'ASC')
            .getRawMany();
    }
    matching(filters) {
        const query = this.dataSource.createQueryBuilder(order_entity_1.Order, 'o');
        if (filters.userId !== undefined)
            query.andWhere('o.userId = :userId', { userId: filters.userId });
        if (filters.concertId !== undefined)
            query.andWhere('o.concertId = :concertId', { concertId: filters.concertId });
        if (filters.status !== undefined)
            query.andWhere('o.status = :status', { status: filters.status });
        if (filters.createdFrom !== undefined) {
            query.andWhere('o.createdAt >= :createdFrom', { createdFrom: (0, local_time_1.toStoredDateTime)(filters.createdFrom) });
        }
        if (filters.createdBefore !== undefined) {
            query.andWhere('o.createdAt < :createdBefore', { createdBefore: (0, local_time_1.toStoredDateTime)(filters.createdBefore) });
        }
        return query;
    }
};
exports.OrdersRepository = OrdersRepository;
exports.OrdersRepository = OrdersRepository = __decorate([
    (0, common_1.Injectable)(),
    __param(0, (0, typeorm_1.InjectDataSource)()),
    __metadata("design:paramtypes", [typeorm_2.DataSource])
], OrdersRepository);
//# sourceMappingURL=orders.repository.js.map