"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.ListOrdersParameters = void 0;
const common_1 = require("@nestjs/common");
exports.ListOrdersParameters = (0, common_1.createParamDecorator)((_, context) => {
    const request = context.switchToHttp().getRequest();
    return { caller: request.user, query: request.query, body: request.body };
});
//# sourceMappingURL=list-orders-request.decorator.js.map