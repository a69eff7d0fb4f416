"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
var ProblemDetailsFilter_1;
Object.defineProperty(exports, "__esModule", { value: true });
exports.ProblemDetailsFilter = exports.DATABASE_RETRY_AFTER_SECONDS = exports.PROBLEM_CONTENT_TYPE = void 0;
const common_1 = require("@nestjs/common");
const node_http_1 = require("node:http");
const database_errors_1 = require("../../database/database-errors");
const request_id_1 = require("../request-id");
const invalid_parameters_exception_1 = require("./invalid-parameters.exception");
exports.PROBLEM_CONTENT_TYPE = 'application/problem+json';
exports.DATABASE_RETRY_AFTER_SECONDS = 5;
const plain = (status, detail) => ({
    type: 'about:blank',
    title: node_http_1.STATUS_CODES[status] ?? 'Error',
    status,
    detail,
});
function expressProblem(exception) {
    if (exception instanceof URIError)
        return plain(400, 'The request URL is not validly percent-encoded');
    if (typeof exception !== 'object' || exception === null)
        return undefined;
    const { type, status } = exception;
    if (typeof type !== 'string' || typeof status !== 'number')
        return undefined;
    switch (type) {
        case 'entity.parse.failed':
            return plain(400, 'The request body is not valid JSON');
        case 'entity.too.large':
            return plain(413, 'The request body is too large');
        case 'encoding.unsupported':
        case 'charset.unsupported':
            return plain(415, 'The request body uses an unsupported encoding');
        default:
            return status >= 400 && status < 500 ? plain(status, 'The request body could not be read') : undefined;
    }
}
function messageOf(exception) {
    const response = exception.getResponse();
    if (typeof response === 'string')
        return response;
    const message = response.message;
    if (Array.isArray(message))
        return message.join('; ');
    return typeof message === 'string' ? message : exception.message;
}
function describe(exception, request) {
    if (exception instanceof invalid_parameters_exception_1.InvalidParametersException) {
        return {
            type: '/problems/invalid-parameters',
            title: 'Invalid request parameters',
            status: common_1.HttpStatus.BAD_REQUEST,
            detail: exception.message,
            errors: exception.errors,
        };
    }
    const fromExpress = expressProblem(exception instanceof common_1.HttpException ? exception.cause : exception);
    if (fromExpress)
        return fromExpress;
    if (exception instanceof common_1.HttpException) {
        const status = exception.getStatus();
        if (status === 404) {
            return plain(status, `No resource at ${request.method} ${request.path}`);
        }
        const described = plain(status, messageOf(exception));
        if (status === 401) {
            const sentToken = /^bearer\s/i.test(request.get('authorization') ?? '');
            described.headers = {
                'WWW-Authenticate': sentToken ? 'Bearer realm="orders", error="invalid_token"' : 'Bearer realm="orders"',
            };
        }
        return { ...described, logAsFailure: status >= 500 };
    }
    if ((0, database_errors_1.isDatabaseUnavailable)(exception)) {
        return {
            type: '/problems/database-unavailable',
            title: 'Service Unavailable',
            status: common_1.HttpStatus.SERVICE_UNAVAILABLE,
            detail: 'The order database is not answering; try again shortly',
            headers: { 'Retry-After': String(exports.DATABASE_RETRY_AFTER_SECONDS) },
            logAsFailure: true,
        };
    }
    return { ...plain(common_1.HttpStatus.INTERNAL_SERVER_ERROR, 'An unexpected error occurred'), logAsFailure: true };
}
let ProblemDetailsFilter = ProblemDetailsFilter_1 = class ProblemDetailsFilter {
    logger = new common_1.Logger(ProblemDetailsFilter_1.name);
    catch(exception, host) {
        const request = host.switchToHttp().getRequest();
        const response = host.switchToHttp().getResponse();
        const { headers, logAsFailure, ...problem } = describe(exception, request);
        const requestId = (0, request_id_1.requestIdOf)(response);
        const body = { ...problem, instance: `urn:request:${requestId}` };
        if (logAsFailure) {
            this.logger.error(`${request.method} ${request.path} answered ${problem.status} [request ${requestId}]`, exception instanceof Error ? exception.stack : String(exception));
        }
        if (response.headersSent)
            return;
        response.status(problem.status).setHeader('Content-Type', `${exports.PROBLEM_CONTENT_TYPE}; charset=utf-8`);
        for (const [name, value] of Object.entries(headers ?? {}))
            response.setHeader(name, value);
        response.end(request.method === 'HEAD' ? undefined : JSON.stringify(body));
    }
};
exports.ProblemDetailsFilter = ProblemDetailsFilter;
exports.ProblemDetailsFilter = ProblemDetailsFilter = ProblemDetailsFilter_1 = __decorate([
    (0, common_1.Catch)()
], ProblemDetailsFilter);
//# sourceMappingURL=problem-details.filter.js.map