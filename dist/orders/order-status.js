"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.ORDER_STATUS_CODES = exports.ORDER_STATUS_LABELS = void 0;
exports.toOrderStatusCode = toOrderStatusCode;
exports.orderStatusLabel = orderStatusLabel;
exports.ORDER_STATUS_LABELS = {
    PAYMENT_PENDING: '결제 대기',
    PAYMENT_COMPLETED: '결제 완료',
    CANCELLED: '주문 취소',
    REFUNDED: '환불 완료',
};
exports.ORDER_STATUS_CODES = Object.keys(exports.ORDER_STATUS_LABELS);
const CODE_BY_LABEL = new Map(exports.ORDER_STATUS_CODES.map((code) => [exports.ORDER_STATUS_LABELS[code], code]));
function toOrderStatusCode(value) {
    return (CODE_BY_LABEL.get(value) ??
        (exports.ORDER_STATUS_CODES.includes(value) ? value : undefined));
}
function orderStatusLabel(code) {
    return exports.ORDER_STATUS_LABELS[code] ?? code;
}
//# sourceMappingURL=order-status.js.map