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
exports.ListOrdersQueryPipe = void 0;
const common_1 = require("@nestjs/common");
const class_transformer_1 = require("class-transformer");
const class_validator_1 = require("class-validator");
const role_1 = require("../../auth/role");
const invalid_parameters_exception_1 = require("../../common/problem/invalid-parameters.exception");
const app_config_1 = require("../../config/app.config");
const orders_query_dto_1 = require("../dto/orders-query.dto");
const order_status_1 = require("../order-status");
const date_bound_1 = require("./date-bound");
const request_parameters_1 = require("./request-parameters");
const sort_1 = require("./sort");
const KNOWN_PARAMETERS = {
    [role_1.Role.User]: new Set(orders_query_dto_1.USER_PARAMETERS),
    [role_1.Role.Admin]: new Set([...orders_query_dto_1.USER_PARAMETERS, ...orders_query_dto_1.ADMIN_FILTERS]),
};
function fieldErrors(errors) {
    return errors.flatMap((error) => Object.values(error.constraints ?? {})
        .slice(0, 1)
        .map((message) => ({ field: error.property, message })));
}
let ListOrdersQueryPipe = class ListOrdersQueryPipe {
    config;
    constructor(config) {
        this.config = config;
    }
    transform({ caller, query, body }) {
        const { values, repeated } = (0, request_parameters_1.mergeRequestParameters)(query, body);
        const isAdmin = caller.role === role_1.Role.Admin;
        if (!isAdmin) {
            const adminFilters = orders_query_dto_1.ADMIN_FILTERS.filter((name) => values.has(name));
            if (adminFilters.length > 0) {
                throw new common_1.ForbiddenException(`Only administrators may filter by ${adminFilters.join(', ')}`);
            }
        }
        const errors = [];
        const known = {};
        for (const [name, value] of values) {
            if (!KNOWN_PARAMETERS[caller.role].has(name)) {
                errors.push({ field: name, message: `${name} is not a parameter of this operation` });
            }
            else if (repeated.has(name) && orders_query_dto_1.SINGLE_VALUED_PARAMETERS.includes(name)) {
                errors.push({ field: name, message: `${name} must be given once` });
            }
            else {
                known[name] = value;
            }
        }
        const dto = (0, class_transformer_1.plainToInstance)(isAdmin ? orders_query_dto_1.AdminOrdersQueryDto : orders_query_dto_1.UserOrdersQueryDto, known);
        errors.push(...fieldErrors((0, class_validator_1.validateSync)(dto)));
        const filters = isAdmin ? this.adminFilters(dto, errors) : {};
        if (errors.length > 0) {
            throw new invalid_parameters_exception_1.InvalidParametersException(errors);
        }
        const size = dto.size ?? orders_query_dto_1.DEFAULT_PAGE_SIZE;
        const sort = (0, sort_1.parseSort)(dto.sort ?? [], isAdmin ? sort_1.ADMIN_SORT_FIELDS : sort_1.USER_SORT_FIELDS);
        return {
            page: dto.page ?? 1,
            size,
            sort: sort.ok ? sort.keys : [],
            filters,
            echoedParameters: echo(values, size),
        };
    }
    adminFilters(dto, errors) {
        const invalid = new Set(errors.map((error) => error.field));
        const valid = (name) => invalid.has(name) ? undefined : dto[name];
        const filters = {};
        filters.userId = valid('userId');
        const [consertId, concertId] = [valid('consertId'), valid('concertId')];
        if (consertId !== undefined && concertId !== undefined && consertId !== concertId) {
            errors.push({
                field: 'concertId',
                message: 'concertId is an alias of consertId; when both are given they must be equal',
            });
        }
        filters.concertId = consertId ?? concertId;
        const status = valid('orderStatus');
        filters.status = status === undefined ? undefined : (0, order_status_1.toOrderStatusCode)(status);
        const timeZone = this.config.timeZone;
        const startText = valid('startDate');
        const endText = valid('endDate');
        const start = startText === undefined ? undefined : (0, date_bound_1.parseStartBound)(startText, timeZone);
        const end = endText === undefined ? undefined : (0, date_bound_1.parseEndBound)(endText, timeZone);
        if (start && !start.ok)
            errors.push({ field: 'startDate', message: `startDate ${start.message}` });
        if (end && !end.ok)
            errors.push({ field: 'endDate', message: `endDate ${end.message}` });
        if (start?.ok && end?.ok && start.epochMs >= end.epochMs) {
            errors.push({ field: 'startDate', message: 'startDate must not be later than endDate' });
        }
        filters.createdFrom = start?.ok ? date_bound_1.boundsRows.from(start.epochMs) : undefined;
        filters.createdBefore = end?.ok ? date_bound_1.boundsRows.before(end.epochMs) : undefined;
        return Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined));
    }
};
exports.ListOrdersQueryPipe = ListOrdersQueryPipe;
exports.ListOrdersQueryPipe = ListOrdersQueryPipe = __decorate([
    (0, common_1.Injectable)(),
    __param(0, (0, common_1.Inject)(app_config_1.appConfig.KEY)),
    __metadata("design:paramtypes", [Object])
], ListOrdersQueryPipe);
function echo(parameters, size) {
    const echoed = [['size', String(size)]];
    const sort = parameters.has('sort') ? (0, request_parameters_1.toQueryValues)(parameters.get('sort')) : [sort_1.DEFAULT_SORT];
    echoed.push(...sort.map((term) => ['sort', term]));
    for (const [name, value] of parameters) {
        if (name !== 'page' && name !== 'size' && name !== 'sort') {
            echoed.push(...(0, request_parameters_1.toQueryValues)(value).map((text) => [name, text]));
        }
    }
    return echoed;
}
//# sourceMappingURL=list-orders-query.pipe.js.map