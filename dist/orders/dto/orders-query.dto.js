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
exports.AdminOrdersQueryDto = exports.UserOrdersQueryDto = exports.SINGLE_VALUED_PARAMETERS = exports.ADMIN_FILTERS = exports.USER_PARAMETERS = exports.DEFAULT_PAGE_SIZE = exports.MAX_PAGE_SIZE = void 0;
const openapi = require("@nestjs/swagger");
const swagger_1 = require("@nestjs/swagger");
const class_validator_1 = require("class-validator");
const order_status_1 = require("../order-status");
const date_bound_1 = require("../query/date-bound");
const sort_1 = require("../query/sort");
const validation_1 = require("./validation");
exports.MAX_PAGE_SIZE = 100;
exports.DEFAULT_PAGE_SIZE = 20;
const MAX_ID = Number.MAX_SAFE_INTEGER;
exports.USER_PARAMETERS = ['page', 'size', 'sort'];
exports.ADMIN_FILTERS = ['userId', 'consertId', 'concertId', 'orderStatus', 'startDate', 'endDate'];
exports.SINGLE_VALUED_PARAMETERS = ['page', 'size', ...exports.ADMIN_FILTERS];
const STATUS_VALUES = [...Object.values(order_status_1.ORDER_STATUS_LABELS), ...order_status_1.ORDER_STATUS_CODES];
const SORT_SYNTAX = 'field, field,asc or field,desc; repeatable';
const positiveId = { message: `$property must be a positive integer no larger than ${MAX_ID}` };
class PageQueryDto {
    page;
    size;
    static _OPENAPI_METADATA_FACTORY() {
        return { page: { required: false, type: () => Number, minimum: 1, maximum: MAX_ID }, size: { required: false, type: () => Number, minimum: 1, maximum: exports.MAX_PAGE_SIZE } };
    }
}
__decorate([
    (0, swagger_1.ApiPropertyOptional)({ type: 'integer', minimum: 1, default: 1, description: 'Page number; the first page is 1.' }),
    (0, validation_1.Optional)(),
    (0, validation_1.ToInteger)(),
    (0, class_validator_1.IsInt)({ message: '$property must be an integer of at least 1' }),
    (0, class_validator_1.Min)(1, { message: '$property must be an integer of at least 1' }),
    (0, class_validator_1.Max)(MAX_ID, { message: `$property must be at most ${MAX_ID}` }),
    __metadata("design:type", Number)
], PageQueryDto.prototype, "page", void 0);
__decorate([
    (0, swagger_1.ApiPropertyOptional)({ type: 'integer', minimum: 1, maximum: exports.MAX_PAGE_SIZE, default: exports.DEFAULT_PAGE_SIZE }),
    (0, validation_1.Optional)(),
    (0, validation_1.ToInteger)(),
    (0, class_validator_1.IsInt)({ message: `$property must be an integer from 1 to ${exports.MAX_PAGE_SIZE}` }),
    (0, class_validator_1.Min)(1, { message: `$property must be an integer from 1 to ${exports.MAX_PAGE_SIZE}` }),
    (0, class_validator_1.Max)(exports.MAX_PAGE_SIZE, { message: `$property must be an integer from 1 to ${exports.MAX_PAGE_SIZE}` }),
    __metadata("design:type", Number)
], PageQueryDto.prototype, "size", void 0);
class UserOrdersQueryDto extends PageQueryDto {
    sort;
    static _OPENAPI_METADATA_FACTORY() {
        return { sort: { required: false, type: () => [String] } };
    }
}
exports.UserOrdersQueryDto = UserOrdersQueryDto;
__decorate([
    (0, swagger_1.ApiPropertyOptional)({
        type: [String],
        default: [sort_1.DEFAULT_SORT],
        description: `${SORT_SYNTAX}. Fields: ${sort_1.USER_SORT_FIELDS.join(', ')}. orderId (desc) is always the last key.`,
        example: ['totalPrice,desc'],
    }),
    (0, validation_1.Optional)(),
    (0, validation_1.ToList)(),
    (0, validation_1.IsSortSpecification)(sort_1.USER_SORT_FIELDS),
    __metadata("design:type", Array)
], UserOrdersQueryDto.prototype, "sort", void 0);
class AdminOrdersQueryDto extends PageQueryDto {
    sort;
    userId;
    consertId;
    concertId;
    orderStatus;
    startDate;
    endDate;
    static _OPENAPI_METADATA_FACTORY() {
        return { sort: { required: false, type: () => [String] }, userId: { required: false, type: () => Number, minimum: 1, maximum: MAX_ID }, consertId: { required: false, type: () => Number, minimum: 1, maximum: MAX_ID }, concertId: { required: false, type: () => Number, minimum: 1, maximum: MAX_ID }, orderStatus: { required: false, type: () => String, enum: STATUS_VALUES }, startDate: { required: false, type: () => String }, endDate: { required: false, type: () => String } };
    }
}
exports.AdminOrdersQueryDto = AdminOrdersQueryDto;
__decorate([
    (0, swagger_1.ApiPropertyOptional)({
        type: [String],
        default: [sort_1.DEFAULT_SORT],
        description: `${SORT_SYNTAX}. Fields: ${sort_1.ADMIN_SORT_FIELDS.join(', ')}. orderId (desc) is always the last key.`,
        example: ['userId,asc'],
    }),
    (0, validation_1.Optional)(),
    (0, validation_1.ToList)(),
    (0, validation_1.IsSortSpecification)(sort_1.ADMIN_SORT_FIELDS),
    __metadata("design:type", Array)
], AdminOrdersQueryDto.prototype, "sort", void 0);
__decorate([
    (0, swagger_1.ApiPropertyOptional)({ type: 'integer', minimum: 1, description: 'Member id (admin only).' }),
    (0, validation_1.Optional)(),
    (0, validation_1.ToInteger)(),
    (0, class_validator_1.IsInt)(positiveId),
    (0, class_validator_1.Min)(1, positiveId),
    (0, class_validator_1.Max)(MAX_ID, positiveId),
    __metadata("design:type", Number)
], AdminOrdersQueryDto.prototype, "userId", void 0);
__decorate([
    (0, swagger_1.ApiPropertyOptional)({
        type: 'integer',
        minimum: 1,
        description: 'Concert id (admin only; spelled as in the specification).',
    }),
    (0, validation_1.Optional)(),
    (0, validation_1.ToInteger)(),
    (0, class_validator_1.IsInt)(positiveId),
    (0, class_validator_1.Min)(1, positiveId),
    (0, class_validator_1.Max)(MAX_ID, positiveId),
    __metadata("design:type", Number)
], AdminOrdersQueryDto.prototype, "consertId", void 0);
__decorate([
    (0, swagger_1.ApiPropertyOptional)({ type: 'integer', minimum: 1, description: 'Alias of consertId (admin only).' }),
    (0, validation_1.Optional)(),
    (0, validation_1.ToInteger)(),
    (0, class_validator_1.IsInt)(positiveId),
    (0, class_validator_1.Min)(1, positiveId),
    (0, class_validator_1.Max)(MAX_ID, positiveId),
    __metadata("design:type", Number)
], AdminOrdersQueryDto.prototype, "concertId", void 0);
__decorate([
    (0, swagger_1.ApiPropertyOptional)({ enum: STATUS_VALUES, description: 'Status label or code (admin only).' }),
    (0, validation_1.Optional)(),
    (0, class_validator_1.IsIn)(STATUS_VALUES, { message: `$property must be one of ${STATUS_VALUES.join(', ')}` }),
    __metadata("design:type", String)
], AdminOrdersQueryDto.prototype, "orderStatus", void 0);
__decorate([
    (0, swagger_1.ApiPropertyOptional)({ description: `Inclusive lower bound on createdAt (admin only): ${date_bound_1.DATE_FORMATS_HINT}.` }),
    (0, validation_1.Optional)(),
    (0, class_validator_1.IsString)({ message: `$property must be a string: ${date_bound_1.DATE_FORMATS_HINT}` }),
    __metadata("design:type", String)
], AdminOrdersQueryDto.prototype, "startDate", void 0);
__decorate([
    (0, swagger_1.ApiPropertyOptional)({
        description: `Inclusive upper bound on createdAt (admin only): ${date_bound_1.DATE_FORMATS_HINT}. A bare date includes the whole day.`,
    }),
    (0, validation_1.Optional)(),
    (0, class_validator_1.IsString)({ message: `$property must be a string: ${date_bound_1.DATE_FORMATS_HINT}` }),
    __metadata("design:type", String)
], AdminOrdersQueryDto.prototype, "endDate", void 0);
//# sourceMappingURL=orders-query.dto.js.map