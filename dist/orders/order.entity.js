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
exports.Order = void 0;
const openapi = require("@nestjs/swagger");
const typeorm_1 = require("typeorm");
const order_seat_entity_1 = require("./order-seat.entity");
let Order = class Order {
    id;
    userId;
    concertId;
    totalPrice;
    status;
    createdAt;
    updatedAt;
    seats;
    static _OPENAPI_METADATA_FACTORY() {
        return { id: { required: true, type: () => Number }, userId: { required: true, type: () => Number }, concertId: { required: true, type: () => Number }, totalPrice: { required: true, type: () => Number }, status: { required: true, enum: ["PAYMENT_PENDING", "PAYMENT_COMPLETED", "CANCELLED", "REFUNDED"] }, createdAt: { required: true, type: () => Date }, updatedAt: { required: true, type: () => Date }, seats: { required: true, type: () => [require("./order-seat.entity").OrderSeat] } };
    }
};
exports.Order = Order;
__decorate([
    (0, typeorm_1.PrimaryGeneratedColumn)({ type: 'bigint', unsigned: true }),
    __metadata("design:type", Number)
], Order.prototype, "id", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'user_id', type: 'bigint', unsigned: true }),
    __metadata("design:type", Number)
], Order.prototype, "userId", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'concert_id', type: 'bigint', unsigned: true }),
    __metadata("design:type", Number)
], Order.prototype, "concertId", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'total_price', type: 'decimal', precision: 12, scale: 2 }),
    __metadata("design:type", Number)
], Order.prototype, "totalPrice", void 0);
__decorate([
    (0, typeorm_1.Column)({ type: 'varchar', length: 32 }),
    __metadata("design:type", String)
], Order.prototype, "status", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'created_at', type: 'datetime', precision: 3 }),
    __metadata("design:type", Date)
], Order.prototype, "createdAt", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'updated_at', type: 'datetime', precision: 3 }),
    __metadata("design:type", Date)
], Order.prototype, "updatedAt", void 0);
__decorate([
    (0, typeorm_1.OneToMany)(() => order_seat_entity_1.OrderSeat, (seat) => seat.order),
    __metadata("design:type", Object)
], Order.prototype, "seats", void 0);
exports.Order = Order = __decorate([
    (0, typeorm_1.Entity)({ name: 'orders' }),
    (0, typeorm_1.Index)('idx_orders_created', ['createdAt']),
    (0, typeorm_1.Index)('idx_orders_user_created', ['userId', 'createdAt']),
    (0, typeorm_1.Index)('idx_orders_concert_created', ['concertId', 'createdAt']),
    (0, typeorm_1.Index)('idx_orders_status_created', ['status', 'createdAt'])
], Order);
//# sourceMappingURL=order.entity.js.map