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
exports.OrderSeat = void 0;
const openapi = require("@nestjs/swagger");
const typeorm_1 = require("typeorm");
const order_entity_1 = require("./order.entity");
let OrderSeat = class OrderSeat {
    orderId;
    seatPriceId;
    price;
    order;
    static _OPENAPI_METADATA_FACTORY() {
        return { orderId: { required: true, type: () => Number }, seatPriceId: { required: true, type: () => Number }, price: { required: true, type: () => Number }, order: { required: true, type: () => require("./order.entity").Order } };
    }
};
exports.OrderSeat = OrderSeat;
__decorate([
    (0, typeorm_1.PrimaryColumn)({ name: 'order_id', type: 'bigint', unsigned: true }),
    __metadata("design:type", Number)
], OrderSeat.prototype, "orderId", void 0);
__decorate([
    (0, typeorm_1.PrimaryColumn)({ name: 'seat_price_id', type: 'bigint', unsigned: true }),
    __metadata("design:type", Number)
], OrderSeat.prototype, "seatPriceId", void 0);
__decorate([
    (0, typeorm_1.Column)({ type: 'decimal', precision: 12, scale: 2 }),
    __metadata("design:type", Number)
], OrderSeat.prototype, "price", void 0);
__decorate([
    (0, typeorm_1.ManyToOne)(() => order_entity_1.Order, (order) => order.seats, { onDelete: 'CASCADE', onUpdate: 'RESTRICT' }),
    (0, typeorm_1.JoinColumn)({ name: 'order_id', foreignKeyConstraintName: 'fk_order_seats_order' }),
    __metadata("design:type", Object)
], OrderSeat.prototype, "order", void 0);
exports.OrderSeat = OrderSeat = __decorate([
    (0, typeorm_1.Entity)({ name: 'order_seats' })
], OrderSeat);
//# sourceMappingURL=order-seat.entity.js.map