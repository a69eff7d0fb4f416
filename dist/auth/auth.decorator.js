"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.CurrentCaller = exports.BEARER_SCHEME = void 0;
exports.Auth = Auth;
const common_1 = require("@nestjs/common");
const swagger_1 = require("@nestjs/swagger");
const jwt_auth_guard_1 = require("./jwt-auth.guard");
const roles_guard_1 = require("./roles.guard");
exports.BEARER_SCHEME = 'bearer';
function Auth(...roles) {
    return (0, common_1.applyDecorators)((0, common_1.SetMetadata)(roles_guard_1.ROLES_KEY, roles), (0, common_1.UseGuards)(jwt_auth_guard_1.JwtAuthGuard, roles_guard_1.RolesGuard), (0, swagger_1.ApiBearerAuth)(exports.BEARER_SCHEME));
}
exports.CurrentCaller = (0, common_1.createParamDecorator)((_, context) => context.switchToHttp().getRequest().user);
//# sourceMappingURL=auth.decorator.js.map