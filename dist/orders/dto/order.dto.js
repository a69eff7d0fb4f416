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
exports.AdminOrderDto = exports.UserOrderDto = exports.SeatDto = void 0;
const openapi = require("@nestjs/swagger");
const swagger_1 = require("@nestjs/swagger");
const order_status_1 = require("../order-status");
class SeatDto {
    seatPriceId;
    price;
    static _OPENAPI_METADATA_FACTORY() {
        return { seatPriceId: { required: true, type: () => Number }, price: { required: true, type: () => Number } };
    }
}
exports.SeatDto = SeatDto;
__decorate([
    (0, swagger_1.ApiProperty)({ example: 1201 }),
    __metadata("design:type", Number)
], SeatDto.prototype, "seatPriceId", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ example: 55000, description: 'Price of the seat, the stored value exactly.' }),
    __metadata("design:type", Number)
], SeatDto.prototype, "price", void 0);
class UserOrderDto {
    orderId;
    concertId;
    seats;
    totalPrice;
    status;
    createdAt;
    updatedAt;
    static _OPENAPI_METADATA_FACTORY() {
        return { orderId: { required: true, type: () => Number }, concertId: { required: true, type: () => Number }, seats: { required: true, type: () => [require("./order.dto").SeatDto] }, totalPrice: { required: true, type: () => Number }, status: { required: true, type: () => String }, createdAt: { required: true, type: () => String }, updatedAt: { required: true, type: () => String } };
    }
}
exports.UserOrderDto = UserOrderDto;
__decorate([
    (0, swagger_1.ApiProperty)({ example: 1042 }),
    __metadata("design:type", Number)
], UserOrderDto.prototype, "orderId", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ example: 7 }),
    __metadata("design:type", Number)
], UserOrderDto.prototype, "concertId", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ type: [SeatDto], description: 'Ascending by seatPriceId; empty for an order without seats.' }),
    __metadata("design:type", Array)
], UserOrderDto.prototype, "seats", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ example: 110000 }),
    __metadata("design:type", Number)
], UserOrderDto.prototype, "totalPrice", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ enum: Object.values(order_status_1.ORDER_STATUS_LABELS), example: order_status_1.ORDER_STATUS_LABELS.PAYMENT_COMPLETED }),
    __metadata("design:type", String)
], UserOrderDto.prototype, "status", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ example: '2026-03-01T19:30:05', description: 'Local time in APP_TIMEZONE, without offset.' }),
    __metadata("design:type", String)
], UserOrderDto.prototype, "createdAt", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ example: '2026-03-01T19:31:40' }),
    __metadata("design:type", String)
], UserOrderDto.prototype, "updatedAt", void 0);
class AdminOrderDto extends UserOrderDto {
    userId;
    static _OPENAPI_METADATA_FACTORY() {
        return { userId: { required: true, type: () => Number } };
    }
}
exports.AdminOrderDto = AdminOrderDto;
__decorate([
    (0, swagger_1.ApiProperty)({ example: 42 }),
    __metadata("design:type", Number)
], AdminOrderDto.prototype, "userId", void 0);
//# sourceMappingURL=order.dto.js.map