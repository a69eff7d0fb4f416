"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.IN_MEMORY_SQLITE = exports.MIGRATIONS = exports.ENTITIES = void 0;
exports.buildDataSourceOptions = buildDataSourceOptions;
const node_fs_1 = require("node:fs");
const node_path_1 = require("node:path");
const order_seat_entity_1 = require("../orders/order-seat.entity");
const order_entity_1 = require("../orders/order.entity");
const _1763683200000_CreateOrders_1 = require("./migrations/1763683200000-CreateOrders");
exports.ENTITIES = [order_entity_1.Order, order_seat_entity_1.OrderSeat];
exports.MIGRATIONS = [_1763683200000_CreateOrders_1.CreateOrders1763683200000];
exports.IN_MEMORY_SQLITE = ':memory:';
function buildDataSourceOptions(config) {
    const common = {
        entities: exports.ENTITIES,
        migrations: exports.MIGRATIONS,
        migrationsTableName: 'migrations',
        synchronize: false,
    };
    if (config.type === 'sqlite') {
        const inMemory = config.path === exports.IN_MEMORY_SQLITE;
        if (!inMemory) {
            (0, node_fs_1.mkdirSync)((0, node_path_1.dirname)(config.path), { recursive: true });
        }
        return {
            ...common,
            type: 'sqljs',
            location: inMemory ? undefined : config.path,
            autoSave: !inMemory,
        };
    }
    return {
        ...common,
        type: 'mysql',
        host: config.host,
        port: config.port,
        username: config.username,
        password: config.password,
        database: config.database,
        charset: 'utf8mb4_unicode_ci',
        timezone: 'Z',
        poolSize: config.poolSize,
        connectTimeout: config.queryTimeoutMs,
        supportBigNumbers: true,
        bigNumberStrings: false,
        extra: { decimalNumbers: true },
    };
}
//# sourceMappingURL=data-source-options.js.map