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
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.JwtStrategy = void 0;
const common_1 = require("@nestjs/common");
const passport_1 = require("@nestjs/passport");
const jsonwebtoken_1 = __importDefault(require("jsonwebtoken"));
const jwks_rsa_1 = require("jwks-rsa");
const passport_jwt_1 = require("passport-jwt");
const auth_config_1 = require("../config/auth.config");
const caller_claims_1 = require("./caller-claims");
function keyOptions(config) {
    switch (config.keySource.mode) {
        case 'secret':
            return { secretOrKey: config.keySource.secret };
        case 'public-key':
            return { secretOrKey: config.keySource.publicKey };
        case 'jwks': {
            const keyFor = (0, jwks_rsa_1.passportJwtSecret)({
                jwksUri: config.keySource.jwksUri,
                cache: true,
                rateLimit: true,
                jwksRequestsPerMinute: 10,
            });
            return {
                secretOrKeyProvider: (request, rawToken, done) => {
                    const kid = jsonwebtoken_1.default.decode(rawToken, { complete: true })?.header?.kid;
                    if (typeof kid !== 'string')
                        return done(new Error('The token names no key (kid)'));
                    keyFor(request, rawToken, done);
                },
            };
        }
    }
}
let JwtStrategy = class JwtStrategy extends (0, passport_1.PassportStrategy)(passport_jwt_1.Strategy, 'jwt') {
    constructor(config) {
        super({
            jwtFromRequest: passport_jwt_1.ExtractJwt.fromAuthHeaderAsBearerToken(),
            ...keyOptions(config),
            algorithms: config.algorithms,
            issuer: config.issuer,
            audience: config.audience,
            ignoreExpiration: false,
            jsonWebTokenOptions: { clockTolerance: config.clockToleranceSeconds },
        });
    }
    validate(claims) {
        if (typeof claims.exp !== 'number') {
            throw new common_1.UnauthorizedException('The access token has no expiry (exp)');
        }
        const check = (0, caller_claims_1.callerFromClaims)(claims);
        if (!check.ok) {
            throw new common_1.ForbiddenException(check.reason);
        }
        return check.caller;
    }
};
exports.JwtStrategy = JwtStrategy;
exports.JwtStrategy = JwtStrategy = __decorate([
    (0, common_1.Injectable)(),
    __param(0, (0, common_1.Inject)(auth_config_1.authConfig.KEY)),
    __metadata("design:paramtypes", [Object])
], JwtStrategy);
//# sourceMappingURL=jwt.strategy.js.map