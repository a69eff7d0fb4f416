"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.randomSource = randomSource;
exports.generateOrders = generateOrders;
const order_status_1 = require("../../orders/order-status");
function randomSource(seed) {
    let state = seed >>> 0;
    return () => {
        state = (state + 0x6d2b79f5) >>> 0;
        let t = state;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}
const SEAT_PRICES = [33000, 55000, 77000, 99000, 132000, 154000, 198000];
const STATUS_WEIGHTS = [
    ['PAYMENT_COMPLETED', 0.7],
    ['PAYMENT_PENDING', 0.1],
    ['CANCELLED', 0.12],
    ['REFUNDED', 0.08],
];
function* generateOrders(options) {
    const random = randomSource(options.seed);
    const pick = (items) => items[Math.floor(random() * items.length)];
    const spanMs = options.days * 86_400_000;
    for (let index = 0; index < options.orders; index += 1) {
        const userId = 1 + Math.floor(random() ** 2 * options.members);
        const concertId = 1 + Math.floor(random() * options.concerts);
        const seatCount = 1 + Math.floor(random() ** 1.5 * 4);
        const seatPriceBase = concertId * 10_000 + Math.floor(random() * 5_000);
        const seats = [];
        for (let seat = 0; seat < seatCount; seat += 1) {
            const discounted = random() < 0.1;
            const listPrice = pick(SEAT_PRICES);
            seats.push({
                seatPriceId: seatPriceBase + seat,
                price: discounted ? Math.round(listPrice * 0.85 * 100 + 50) / 100 : listPrice,
            });
        }
        const roll = random();
        let cumulative = 0;
        const status = STATUS_WEIGHTS.find(([, weight]) => (cumulative += weight) >= roll)?.[0] ?? order_status_1.ORDER_STATUS_CODES[0];
        const createdAtMs = options.endMs - Math.floor(random() * spanMs);
        const updatedAtMs = status === 'PAYMENT_PENDING' ? createdAtMs : createdAtMs + Math.floor(random() * 3_600_000);
        yield {
            userId,
            concertId,
            totalPrice: Math.round(seats.reduce((sum, seat) => sum + seat.price * 100, 0)) / 100,
            status,
            createdAtMs,
            updatedAtMs,
            seats,
        };
    }
}
//# sourceMappingURL=order-generator.js.map