"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.JwtAuthGuard = void 0;
const common_1 = require("@nestjs/common");
const passport_1 = require("@nestjs/passport");
function describeRejection(info) {
    const name = info instanceof Error ? info.name : undefined;
    switch (name) {
        case 'TokenExpiredError':
            return 'The access token has expired';
        case 'NotBeforeError':
            return 'The access token is not valid yet (nbf)';
        case 'JsonWebTokenError':
            return 'The access token is invalid';
        default:
            return info instanceof Error && /auth token/i.test(info.message)
                ? 'A bearer access token is required'
                : 'The access token is invalid';
    }
}
let JwtAuthGuard = class JwtAuthGuard extends (0, passport_1.AuthGuard)('jwt') {
    handleRequest(error, caller, info) {
        if (error instanceof common_1.HttpException)
            throw error;
        if (error || !caller)
            throw new common_1.UnauthorizedException(describeRejection(error ?? info));
        return caller;
    }
};
exports.JwtAuthGuard = JwtAuthGuard;
exports.JwtAuthGuard = JwtAuthGuard = __decorate([
    (0, common_1.Injectable)()
], JwtAuthGuard);
//# sourceMappingURL=jwt-auth.guard.js.map