"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.writeOrders = writeOrders;
const local_time_1 = require("../../common/time/local-time");
const BATCH_SIZE = 1000;
const placeholders = (rows, columns) => Array.from({ length: rows }, () => `(${Array.from({ length: columns }, () => '?').join(', ')})`).join(', ');
async function insertBatch(manager, firstId, orders) {
    const orderValues = orders.flatMap((order, index) => [
        firstId + index,
        order.userId,
        order.concertId,
        order.totalPrice,
        order.status,
        (0, local_time_1.toStoredDateTime)(order.createdAtMs),
        (0, local_time_1.toStoredDateTime)(order.updatedAtMs),
    ]);
    await manager.query(`INSERT INTO orders (id, user_id, concert_id, total_price, status, created_at, updated_at) VALUES ${placeholders(orders.length, 7)}`, orderValues);
    const seatValues = orders.flatMap((order, index) => order.seats.flatMap((seat) => [firstId + index, seat.seatPriceId, seat.price]));
    if (seatValues.length > 0) {
        await manager.query(`INSERT INTO order_seats (order_id, seat_price_id, price) VALUES ${placeholders(seatValues.length / 3, 3)}`, seatValues);
    }
}
async function writeOrders(dataSource, orders, onBatch) {
    return dataSource.transaction(async (manager) => {
        const [{ maxId }] = await manager.query('SELECT MAX(id) AS maxId FROM orders');
        let nextId = Number(maxId ?? 0) + 1;
        const ids = [];
        let batch = [];
        const flush = async () => {
            await insertBatch(manager, nextId, batch);
            for (let index = 0; index < batch.length; index += 1)
                ids.push(nextId + index);
            nextId += batch.length;
            batch = [];
            onBatch?.(ids.length);
        };
        for (const order of orders) {
            batch.push(order);
            if (batch.length === BATCH_SIZE)
                await flush();
        }
        if (batch.length > 0)
            await flush();
        return ids;
    });
}
//# sourceMappingURL=order-writer.js.map