"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.REQUEST_ID_HEADER = void 0;
exports.assignRequestId = assignRequestId;
exports.requestIdOf = requestIdOf;
const node_crypto_1 = require("node:crypto");
exports.REQUEST_ID_HEADER = 'X-Request-Id';
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
function assignRequestId(request, response, next) {
    const offered = request.get(exports.REQUEST_ID_HEADER);
    response.setHeader(exports.REQUEST_ID_HEADER, offered && SANE_REQUEST_ID.test(offered) ? offered : (0, node_crypto_1.randomUUID)());
    next();
}
function requestIdOf(response) {
    return String(response.getHeader(exports.REQUEST_ID_HEADER) ?? '');
}
//# sourceMappingURL=request-id.js.map