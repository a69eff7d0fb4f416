"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.DEMO_MEMBER_ID = void 0;
exports.fillEmptyDatabaseWithDemoOrders = fillEmptyDatabaseWithDemoOrders;
const common_1 = require("@nestjs/common");
const order_generator_1 = require("./seeding/order-generator");
const order_writer_1 = require("./seeding/order-writer");
exports.DEMO_MEMBER_ID = 1;
const DEMO_ORDERS = 3000;
async function fillEmptyDatabaseWithDemoOrders(dataSource) {
    const [{ present }] = await dataSource.query('SELECT EXISTS (SELECT 1 FROM orders) AS present');
    if (Number(present) === 1)
        return;
    await (0, order_writer_1.writeOrders)(dataSource, (0, order_generator_1.generateOrders)({ orders: DEMO_ORDERS, members: 12, concerts: 40, days: 365, endMs: Date.now(), seed: 2026 }));
    new common_1.Logger('DemoData').log(`Filled the embedded database with ${DEMO_ORDERS} demo orders`);
}
//# sourceMappingURL=demo-data.js.map