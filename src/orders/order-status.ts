/** docs/API.md §5: the code is stored, the label is shown and accepted. */
export const ORDER_STATUS_LABELS = {
  PAYMENT_PENDING: '결제 대기',
  PAYMENT_COMPLETED: '결제 완료',
  CANCELLED: '주문 취소',
  REFUNDED: '환불 완료',
} as const;

export type OrderStatusCode = keyof typeof ORDER_STATUS_LABELS;

export const ORDER_STATUS_CODES = Object.keys(ORDER_STATUS_LABELS) as OrderStatusCode[];

const CODE_BY_LABEL = new Map<string, OrderStatusCode>(
  ORDER_STATUS_CODES.map((code) => [ORDER_STATUS_LABELS[code], code]),
);

/** Accepts a label or a code; anything else is `undefined`. */
export function toOrderStatusCode(value: string): OrderStatusCode | undefined {
  return (
    CODE_BY_LABEL.get(value) ??
    (ORDER_STATUS_CODES.includes(value as OrderStatusCode) ? (value as OrderStatusCode) : undefined)
  );
}

export function orderStatusLabel(code: string): string {
  return ORDER_STATUS_LABELS[code as OrderStatusCode] ?? code;
}
