"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.databaseConfig = void 0;
exports.toDatabaseConfig = toDatabaseConfig;
const config_1 = require("@nestjs/config");
const environment_1 = require("./environment");
function toDatabaseConfig(env) {
    if (env.DB_TYPE === 'sqlite') {
        return { type: 'sqlite', path: env.SQLITE_PATH };
    }
    return {
        type: 'mysql',
        host: env.DB_HOST,
        port: env.DB_PORT,
        username: env.DB_USERNAME,
        password: env.DB_PASSWORD,
        database: env.DB_DATABASE,
        poolSize: env.DB_POOL_SIZE,
        queryTimeoutMs: env.DB_QUERY_TIMEOUT_MS,
    };
}
exports.databaseConfig = (0, config_1.registerAs)('database', () => toDatabaseConfig((0, environment_1.validateEnvironment)(process.env)));
//# sourceMappingURL=database.config.js.map