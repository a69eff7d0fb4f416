import 'dotenv/config';
import jwt from 'jsonwebtoken';
import { createPool, type Pool, type RowDataPacket } from 'mysql2/promise';
import { createSecretKey } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { toAuthConfig } from '../src/config/auth.config';
import { validateEnvironment } from '../src/config/environment';
import { LocalTimeFormatter, toStoredDateTime } from '../src/common/time/local-time';
import { toAdminOrder, toUserOrder } from '../src/orders/order-element';
import type { OrderRow } from '../src/orders/model';
import { OrdersPageDto } from '../src/orders/dto/orders-page.dto';
import { parseEndBound, parseStartBound } from '../src/orders/query/date-bound';
import { toOrderStatusCode } from '../src/orders/order-status';

/**
 * The raw floor: node:http and mysql2 with hand-written SQL of the same shape
 * as the service's (page of ids in a deferred join, COUNT(*) when needed,
 * seats in one IN), the same token check and byte-identical JSON — no Nest,
 * no TypeORM, no validation framework. It understands only the benchmark's
 * parameters. `_paging=offset` pages with a plain OFFSET instead, for comparison.
 */
const env = validateEnvironment(process.env);
const auth = toAuthConfig(env);
// Parsed once, as the service does: jsonwebtoken would re-parse a string key on every request.
const secret = createSecretKey(
  Buffer.from(auth.verification.mode === 'secret' ? auth.verification.secret : '', 'utf8'),
);
const time = new LocalTimeFormatter(env.APP_TIMEZONE);
const pool: Pool = createPool({
  host: env.DB_HOST,
  port: env.DB_PORT,
  user: env.DB_USERNAME,
  password: env.DB_PASSWORD,
  database: env.DB_DATABASE,
  connectionLimit: env.DB_POOL_SIZE,
  timezone: 'Z',
  supportBigNumbers: true,
  bigNumberStrings: false,
  decimalNumbers: true,
  // As the service does: no stack capture per query.
  trace: false,
});
const COLUMNS =
  'o.id, o.user_id AS userId, o.concert_id AS concertId, o.total_price AS totalPrice, o.status, o.created_at AS createdAt, o.updated_at AS updatedAt';

function fail(response: ServerResponse, status: number): void {
  response.writeHead(status, { 'Content-Type': 'application/problem+json' }).end(JSON.stringify({ status }));
}

const DAY_MS = 86_400_000;
const day = (epochMs: number) => new Date(epochMs).toISOString().slice(0, 10);

/** The service's counting, by hand: per-day totals for whole days plus the partial edge days, else COUNT(*). */
async function count(
  where: string[],
  values: unknown[],
  fromDailyTotals: boolean,
  status: string | undefined,
  start: { ok: true; epochMs: number } | { ok: false } | undefined,
  end: { ok: true; epochMs: number } | { ok: false } | undefined,
): Promise<number> {
  const filter = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  const from = start?.ok ? start.epochMs : undefined;
  const before = end?.ok ? end.epochMs : undefined;
  const firstWholeDay = from === undefined ? undefined : Math.ceil(from / DAY_MS) * DAY_MS;
  const afterWholeDays = before === undefined ? undefined : Math.floor(before / DAY_MS) * DAY_MS;
  if (
    !fromDailyTotals ||
    (firstWholeDay !== undefined && afterWholeDays !== undefined && firstWholeDay >= afterWholeDays)
  ) {
    const [[row]] = await pool.query<RowDataPacket[]>(`SELECT COUNT(*) AS total FROM orders ${filter}`, values);
    return Number(row.total);
  }
  const daily: string[] = [];
  const dailyValues: unknown[] = [];
  const dailyCondition = (sql: string, value: unknown) => {
    daily.push(sql);
    dailyValues.push(value);
  };
  if (status !== undefined) dailyCondition('status = ?', status);
  // The days' conditions follow the status's: the moves take those alone.
  const firstDayCondition = daily.length;
  if (firstWholeDay !== undefined) dailyCondition('day >= ?', day(firstWholeDay));
  if (afterWholeDays !== undefined) dailyCondition('day < ?', day(afterWholeDays));
  const edges: string[] = [];
  const edgeValues: unknown[] = [];
  for (const [edgeFrom, edgeBefore] of [
    [from, firstWholeDay],
    [afterWholeDays, before],
  ]) {
    if (edgeFrom === undefined || edgeBefore === undefined || edgeFrom >= edgeBefore) continue;
    edges.push(
      `(SELECT COUNT(*) FROM orders WHERE ${status !== undefined ? 'status = ? AND ' : ''}created_at >= ? AND created_at < ?)`,
    );
    edgeValues.push(
      ...(status !== undefined ? [status] : []),
      toStoredDateTime(edgeFrom),
      toStoredDateTime(edgeBefore),
    );
  }
  const dailyWhere = daily.length > 0 ? `WHERE ${daily.join(' AND ')}` : '';
  const unfolded = `(SELECT COALESCE(SUM(delta), 0) FROM order_count_changes ${dailyWhere})`;
  // Moves net to zero over all statuses; a status adds those into it and subtracts those out of it.
  const moved: string[] = [];
  const movedValues: unknown[] = [];
  if (status !== undefined) {
    const days = daily
      .slice(firstDayCondition)
      .map((condition) => ` AND ${condition}`)
      .join('');
    moved.push(
      `(SELECT COALESCE(SUM(CASE WHEN to_status = ? THEN 1 ELSE -1 END), 0) FROM order_count_moves WHERE (to_status = ? OR from_status = ?)${days})`,
    );
    movedValues.push(status, status, status, ...dailyValues.slice(firstDayCondition));
  }
  const [[row]] = await pool.query<RowDataPacket[]>(
    `SELECT COALESCE(SUM(orders), 0)${[...edges, unfolded, ...moved].map((part) => ` + ${part}`).join('')} AS total FROM order_daily_counts ${dailyWhere}`,
    [...edgeValues, ...dailyValues, ...movedValues, ...dailyValues],
  );
  return Number(row.total);
}

async function list(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://floor');
  const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
  let claims: jwt.JwtPayload;
  try {
    claims = jwt.verify(token ?? '', secret, {
      algorithms: ['HS256'],
      issuer: auth.issuer,
      audience: auth.audience,
    }) as jwt.JwtPayload;
  } catch {
    return fail(response, 401);
  }
  const isAdmin = claims.role === 'ADMIN';
  const query = url.searchParams;
  const page = Number(query.get('page') ?? 1);
  const size = Number(query.get('size') ?? 20);
  const where: string[] = [];
  const values: unknown[] = [];
  const condition = (sql: string, value: unknown) => {
    where.push(sql);
    values.push(value);
  };
  const userId = isAdmin ? query.get('userId') : String(claims.sub);
  if (userId) condition('user_id = ?', Number(userId));
  if (isAdmin && query.get('consertId')) condition('concert_id = ?', Number(query.get('consertId')));
  const status = isAdmin && query.get('orderStatus') ? toOrderStatusCode(query.get('orderStatus') ?? '') : undefined;
  if (status) condition('status = ?', status);
  const start =
    isAdmin && query.get('startDate') ? parseStartBound(query.get('startDate') ?? '', env.APP_TIMEZONE) : undefined;
  const end = isAdmin && query.get('endDate') ? parseEndBound(query.get('endDate') ?? '', env.APP_TIMEZONE) : undefined;
  if (start?.ok) condition('created_at >= ?', toStoredDateTime(start.epochMs));
  if (end?.ok) condition('created_at < ?', toStoredDateTime(end.epochMs));
  const filter = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  const offset = (page - 1) * size;

  const pageSql =
    query.get('_paging') === 'offset'
      ? `SELECT ${COLUMNS} FROM orders o ${filter.replaceAll(/(user_id|concert_id|status|created_at)/g, 'o.$1')} ORDER BY o.created_at DESC, o.id DESC LIMIT ${size} OFFSET ${offset}`
      : `SELECT ${COLUMNS} FROM orders o INNER JOIN (SELECT id FROM orders ${filter} ORDER BY created_at DESC, id DESC LIMIT ${size} OFFSET ${offset}) p ON p.id = o.id ORDER BY o.created_at DESC, o.id DESC`;
  const [rows] = await pool.query<Array<OrderRow & RowDataPacket>>(pageSql, values);
  const ids = rows.map((row) => row.id);
  const [total, seats] = await Promise.all([
    rows.length > 0 && rows.length < size
      ? offset + rows.length
      : rows.length === 0 && offset === 0
        ? 0
        : count(where, values, isAdmin && !userId && !query.get('consertId'), status, start, end),
    ids.length === 0
      ? []
      : pool
          .query<RowDataPacket[]>(
            'SELECT order_id AS orderId, seat_price_id AS seatPriceId, price FROM order_seats WHERE order_id IN (?) ORDER BY order_id, seat_price_id',
            [ids],
          )
          .then(([seatRows]) => seatRows),
  ]);
  const byOrder = new Map<number, Array<{ seatPriceId: number; price: number }>>();
  for (const seat of seats) {
    const list = byOrder.get(seat.orderId as number) ?? [];
    list.push({ seatPriceId: seat.seatPriceId as number, price: seat.price as number });
    byOrder.set(seat.orderId as number, list);
  }
  const toElement = isAdmin ? toAdminOrder : toUserOrder;
  const elements = rows.map((row) => toElement(row, byOrder.get(row.id) ?? [], time));
  response
    .writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' })
    .end(JSON.stringify(OrdersPageDto.of(elements, total, page, size)));
}

createServer((request, response) => {
  list(request, response).catch(() => fail(response, 500));
}).listen(Number(process.env.PORT ?? 3901), '127.0.0.1');

// Exits normally on SIGTERM, so that a `--cpu-prof` profile (npm run bench -- --profile) is written.
process.once('SIGTERM', () => process.exit(0));
