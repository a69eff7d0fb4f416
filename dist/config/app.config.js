"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.appConfig = void 0;
const config_1 = require("@nestjs/config");
const environment_1 = require("./environment");
exports.appConfig = (0, config_1.registerAs)('app', () => {
    const env = (0, environment_1.validateEnvironment)(process.env);
    return {
        nodeEnv: env.NODE_ENV,
        port: env.PORT,
        timeZone: env.APP_TIMEZONE,
        logLevel: env.LOG_LEVEL,
        rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
        corsOrigins: env.CORS_ORIGINS,
        shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
    };
});
//# sourceMappingURL=app.config.js.map