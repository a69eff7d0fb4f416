"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.authConfig = void 0;
exports.toAuthConfig = toAuthConfig;
const node_crypto_1 = require("node:crypto");
const config_1 = require("@nestjs/config");
const environment_1 = require("./environment");
function keySourceOf(env) {
    if (env.JWT_JWKS_URI)
        return { mode: 'jwks', jwksUri: env.JWT_JWKS_URI };
    if (env.JWT_PUBLIC_KEY)
        return { mode: 'public-key', publicKey: env.JWT_PUBLIC_KEY };
    return { mode: 'secret', secret: env.JWT_SECRET ?? environment_1.DEVELOPMENT_JWT_SECRET };
}
function defaultAlgorithms(keySource) {
    switch (keySource.mode) {
        case 'secret':
            return ['HS256'];
        case 'public-key':
            return (0, node_crypto_1.createPublicKey)(keySource.publicKey).asymmetricKeyType === 'ec' ? ['ES256'] : ['RS256'];
        case 'jwks':
            return ['RS256', 'ES256'];
    }
}
function toAuthConfig(env) {
    const keySource = keySourceOf(env);
    return {
        keySource,
        algorithms: env.JWT_ALGORITHMS ?? defaultAlgorithms(keySource),
        issuer: env.JWT_ISSUER,
        audience: env.JWT_AUDIENCE,
        clockToleranceSeconds: env.JWT_CLOCK_TOLERANCE_S,
        usesDevelopmentSecret: keySource.mode === 'secret' && keySource.secret === environment_1.DEVELOPMENT_JWT_SECRET,
    };
}
exports.authConfig = (0, config_1.registerAs)('auth', () => toAuthConfig((0, environment_1.validateEnvironment)(process.env)));
//# sourceMappingURL=auth.config.js.map