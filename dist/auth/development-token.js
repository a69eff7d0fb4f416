"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.signDevelopmentToken = signDevelopmentToken;
const jsonwebtoken_1 = __importDefault(require("jsonwebtoken"));
function signDevelopmentToken(config, claims, expiresIn = '1h') {
    if (config.keySource.mode !== 'secret') {
        throw new Error('Tokens can only be signed here when the service verifies with JWT_SECRET');
    }
    return jsonwebtoken_1.default.sign({ sub: String(claims.sub), role: claims.role }, config.keySource.secret, {
        algorithm: config.algorithms[0],
        expiresIn,
        ...(config.issuer ? { issuer: config.issuer } : {}),
        ...(config.audience ? { audience: config.audience } : {}),
    });
}
//# sourceMappingURL=development-token.js.map