import fc from 'fast-check';
import { MEMBER_WITHOUT_ORDERS, MEMBERS, seoul, STATUSES } from './dataset';
import { ADMIN_SORT_FIELDS, type Direction, type Field, type OracleQuery } from './oracle';

/** fast-check arbitraries of listing requests, written as a client would write them, each with its oracle query. */
export type SortTerm = { field: Field; direction: Direction; written: string };

export const sortTerms = (fields: readonly Field[]) =>
  fc
    .uniqueArray(
      fc.record({
        field: fc.constantFrom(...fields),
        direction: fc.constantFrom<Direction>('asc', 'desc'),
        // How the client writes it: direction omitted (asc), lower or upper case.
        style: fc.constantFrom('implicit', 'lower', 'upper'),
      }),
      { selector: (term) => term.field, maxLength: 3 },
    )
    .map((terms) =>
      terms.map(({ field, direction, style }): SortTerm => {
        const effective: Direction = style === 'implicit' ? 'asc' : direction;
        const written =
          style === 'implicit' ? field : `${field},${style === 'upper' ? effective.toUpperCase() : effective}`;
        return { field, direction: effective, written };
      }),
    );

interface DateBound {
  text: string;
  /** The first and last millisecond the bound covers, worked out here without the service's parser. */
  firstMs: number;
  lastMs: number;
}

const dateBound = fc
  .record({
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 28 }),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
    second: fc.integer({ min: 0, max: 59 }),
    form: fc.constantFrom('date', 'local', 'utc', 'offset'),
    offsetMinutes: fc.integer({ min: -12 * 60, max: 14 * 60 }),
  })
  .map(({ month, day, hour, minute, second, form, offsetMinutes }): DateBound => {
    const two = (value: number) => String(value).padStart(2, '0');
    const date = `2026-${two(month)}-${two(day)}`;
    const time = `${two(hour)}:${two(minute)}:${two(second)}`;
    if (form === 'date')
      return { text: date, firstMs: seoul(2026, month, day), lastMs: seoul(2026, month, day + 1) - 1 };
    if (form === 'local') {
      const at = seoul(2026, month, day, hour, minute, second);
      return { text: `${date}T${time}`, firstMs: at, lastMs: at + 999 };
    }
    const offset = form === 'utc' ? 0 : offsetMinutes;
    const designator =
      form === 'utc'
        ? 'Z'
        : `${offset < 0 ? '-' : '+'}${two(Math.floor(Math.abs(offset) / 60))}:${two(Math.abs(offset) % 60)}`;
    const at = Date.UTC(2026, month - 1, day, hour, minute, second) - offset * 60_000;
    return { text: `${date}T${time}${designator}`, firstMs: at, lastMs: at + 999 };
  });

export interface AdminQuery {
  page: number;
  size: number;
  sort: SortTerm[];
  userId: number | null;
  concertId: number | null;
  concertSpelling: 'consertId' | 'concertId';
  status: string | null;
  statusAsLabel: boolean;
  start: DateBound | null;
  end: DateBound | null;
}

export const adminQuery: fc.Arbitrary<AdminQuery> = fc.record({
  page: fc.integer({ min: 1, max: 12 }),
  size: fc.integer({ min: 1, max: 100 }),
  sort: sortTerms(ADMIN_SORT_FIELDS),
  userId: fc.option(fc.constantFrom(...MEMBERS, MEMBER_WITHOUT_ORDERS), { freq: 3 }),
  concertId: fc.option(fc.integer({ min: 1, max: 13 }), { freq: 3 }),
  concertSpelling: fc.constantFrom<'consertId' | 'concertId'>('consertId', 'concertId'),
  status: fc.option(fc.constantFrom(...STATUSES), { freq: 3 }),
  statusAsLabel: fc.boolean(),
  start: fc.option(dateBound, { freq: 3 }),
  end: fc.option(dateBound, { freq: 3 }),
});

const LABELS: Record<string, string> = {
  PAYMENT_PENDING: '결제 대기',
  PAYMENT_COMPLETED: '결제 완료',
  CANCELLED: '주문 취소',
  REFUNDED: '환불 완료',
};

export function written(query: AdminQuery, page = query.page): { text: string; oracle: OracleQuery } {
  const parts = [
    `page=${page}`,
    `size=${query.size}`,
    ...query.sort.map((term) => `sort=${encodeURIComponent(term.written)}`),
  ];
  if (query.userId !== null) parts.push(`userId=${query.userId}`);
  if (query.concertId !== null) parts.push(`${query.concertSpelling}=${query.concertId}`);
  if (query.status !== null)
    parts.push(`orderStatus=${encodeURIComponent(query.statusAsLabel ? LABELS[query.status] : query.status)}`);
  if (query.start !== null) parts.push(`startDate=${encodeURIComponent(query.start.text)}`);
  if (query.end !== null) parts.push(`endDate=${encodeURIComponent(query.end.text)}`);
  return {
    text: parts.join('&'),
    oracle: {
      role: 'ADMIN',
      callerId: 9000,
      page,
      size: query.size,
      sort:
        query.sort.length > 0
          ? query.sort.map((term): [Field, Direction] => [term.field, term.direction])
          : undefined,
      userId: query.userId ?? undefined,
      concertId: query.concertId ?? undefined,
      status: query.status ?? undefined,
      fromMs: query.start?.firstMs,
      toMs: query.end?.lastMs,
    },
  };
}

export const inverted = (query: AdminQuery) =>
  query.start !== null && query.end !== null && query.start.firstMs > query.end.lastMs;

