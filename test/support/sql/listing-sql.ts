import { format } from 'sql-formatter';
import { DataSource, type DataSourceOptions, type QueryRunner } from 'typeorm';
import { Role, type Caller } from '../../../src/auth/role';
import { ProblemException } from '../../../src/common/problem/problem-details';
import { LocalTimeFormatter } from '../../../src/common/time/local-time';
import type { DatabaseConfig } from '../../../src/config/database.config';
import type { PinnedReads, ReadRequirements, ReadRouter } from '../../../src/database/read-router';
import { NoCapableServerException, holds } from '../../../src/database/server-choice';
import { MonotonicClock } from '../../../src/common/time/clock';
import type { DatabaseServer } from '../../../src/database/database-server';
import { RequestDeadline } from '../../../src/database/request-deadline';
import { ReadSession, STATEMENT_SEPARATOR, type StatementKind } from '../../../src/database/read-session';
import { isSnapshotStatement } from '../app/statement-recorder';
import { StatementTimings } from '../../../src/database/statement-timings';
import { EMBEDDED_CATALOG, type ServerCatalog } from '../../../src/database/server-catalog';
import { ORDER_ENTITIES } from '../../../src/orders/order-entities';
import { Order } from '../../../src/orders/order.entity';
import { listingVariantOf, scopedFilters } from '../../../src/orders/listing-variant';
import { OrdersRepository } from '../../../src/orders/orders.repository';
import { OrdersService } from '../../../src/orders/orders.service';
import { EXPORT_BATCH_SIZE, ExportBatches } from '../../../src/orders/export/export-batches';
import { PagePlans, type PageReach } from '../../../src/orders/page-plans';
import { QueryShapes } from '../../../src/database/query-shapes';
import { CountStatements } from '../../../src/orders/statements/count-statement';
import { DayCountStatements } from '../../../src/orders/statements/day-counts-statement';
import { PageStatements } from '../../../src/orders/statements/page-statement';
import { SeatStatements } from '../../../src/orders/statements/seat-statement';
import type { ListOrdersQuery } from '../../../src/orders/query/list-orders-query';
import { parseSort } from '../../../src/orders/query/sort';
import type { OrdersIndex } from '../../../src/orders/index-fit';
import { QueryPlanner, type MatchSizes, type PlanRule } from '../../../src/orders/query-plan';
import { REPLICA_INDEXES } from '../../../src/orders/replica-indexes';
import {
  ADMIN_SORT_FIELDS,
  type OrderFilters,
  type OrderRow,
  type CursorDirection,
  type SortKey,
} from '../../../src/orders/model';

/** The kinds of server the listing sends statements to, each with the indexes it holds. */
export const SERVER_KINDS = ['embedded', 'primary', 'replica'] as const;
export type ServerKind = (typeof SERVER_KINDS)[number];

/** Where each kind's statements are checked in, from the repository's root. */
export const LISTING_SQL_FILES: Record<ServerKind, string> = {
  embedded: 'src/orders/sql/embedded.sql',
  primary: 'src/orders/sql/mysql-primary.sql',
  replica: 'src/orders/sql/mysql-replica.sql',
};

/** A request of the catalogue: what it asks, and what the counts it reads first answer. */
interface ListingRequest {
  title: string;
  caller: 'member' | 'administrator';
  filters?: OrderFilters;
  sort?: string[];
  page?: number;
  size?: number;
  /** A followed `next` (after) or `prev` (before) link. */
  followed?: CursorDirection;
  /** An export (docs/API.md §13) instead of a page: its batches, each a page of its own and its seats. */
  exported?: boolean;
  /** What the count statements answer; the planner chooses among size-dependent plans by them. */
  sizes: Required<Pick<MatchSizes, 'matching' | 'table' | 'range'>>;
  /** Where the counts answer that every match lies in the sort's column, where the repository asks (docs/adr/0020). */
  bounds?: [lowest: number, highest: number];
}

const utc = (year: number, month: number, day = 1) => Date.UTC(year, month - 1, day);
const TABLE = 10_000_000;
/** The seeded data's span of creation time (docs/BENCHMARKS.md): the open side of a range ends there. */
const FIRST_CREATED = '2024-11-01 00:00:00.000';
const LAST_CREATED = '2026-10-31 23:59:59.000';

/**
 * The catalogue: each way the repository builds a statement, and each plan the planner chooses on a server that
 * holds the replicas' indexes and on one that holds the schema's alone. Other requests differ from one of these only
 * in which of the same conditions are present, in the ORDER BY's keys and in the index named.
 */
const REQUESTS: ListingRequest[] = [
  {
    title: "a member's orders, newest first",
    caller: 'member',
    sizes: { matching: 60, table: TABLE, range: 0 },
  },
  {
    title: "a member's orders by price, page 2",
    caller: 'member',
    sort: ['totalPrice,asc'],
    page: 2,
    sizes: { matching: 60, table: TABLE, range: 0 },
  },
  {
    title: 'every order, newest first',
    caller: 'administrator',
    sizes: { matching: TABLE, table: TABLE, range: TABLE },
  },
  {
    title: 'every order by price',
    caller: 'administrator',
    sort: ['totalPrice,asc'],
    sizes: { matching: TABLE, table: TABLE, range: TABLE },
  },
  {
    title: 'a concert with a status, by member',
    caller: 'administrator',
    filters: { concertId: 7, status: 'PAYMENT_COMPLETED' },
    sort: ['userId,desc'],
    sizes: { matching: 1_900, table: TABLE, range: TABLE },
  },
  {
    title: 'refunds by update time, newest first',
    caller: 'administrator',
    filters: { status: 'REFUNDED' },
    sort: ['updatedAt,desc'],
    sizes: { matching: 300_000, table: TABLE, range: TABLE },
  },
  {
    title: 'refunds, newest first',
    caller: 'administrator',
    filters: { status: 'REFUNDED' },
    sizes: { matching: 300_000, table: TABLE, range: TABLE },
    // Days since 1970-01-01: from 2024-11-01 to 2026-10-27.
    bounds: [20_028, 20_753],
  },
  {
    title: 'pending orders until March, by id',
    caller: 'administrator',
    filters: { status: 'PAYMENT_PENDING', createdBefore: utc(2025, 4) },
    sort: ['orderId,desc'],
    sizes: { matching: 40_000, table: TABLE, range: 2_000_000 },
    bounds: [2_118, 9_402_771],
  },
  {
    title: 'a month, newest first',
    caller: 'administrator',
    filters: { createdFrom: utc(2025, 6), createdBefore: utc(2025, 7) },
    sizes: { matching: 420_000, table: TABLE, range: 420_000 },
  },
  {
    title: 'a day of refunds, by price',
    caller: 'administrator',
    filters: { status: 'REFUNDED', createdFrom: utc(2025, 6, 2), createdBefore: utc(2025, 6, 3) },
    sort: ['totalPrice,desc'],
    sizes: { matching: 400, table: TABLE, range: 14_000 },
  },
  {
    title: 'a day of refunds, by member',
    caller: 'administrator',
    filters: { status: 'REFUNDED', createdFrom: utc(2025, 6, 2), createdBefore: utc(2025, 6, 3) },
    sort: ['userId,asc'],
    sizes: { matching: 400, table: TABLE, range: 14_000 },
  },
  {
    title: 'refunds by price, at 400,000 orders: few enough to sort whole',
    caller: 'administrator',
    filters: { status: 'REFUNDED' },
    sort: ['totalPrice,asc'],
    sizes: { matching: 12_000, table: 400_000, range: 400_000 },
  },
  {
    title: 'a status within a year, by concert',
    caller: 'administrator',
    filters: { status: 'PAYMENT_COMPLETED', createdFrom: utc(2025, 1), createdBefore: utc(2026, 1) },
    sort: ['concertId,desc'],
    sizes: { matching: 4_000_000, table: TABLE, range: 5_000_000 },
    bounds: [1, 4_980],
  },
  {
    title: 'a quarter by update time, newest first, from the middle of a month',
    caller: 'administrator',
    filters: { createdFrom: utc(2025, 4, 20), createdBefore: utc(2025, 7) },
    sort: ['updatedAt,desc'],
    sizes: { matching: 1_000_000, table: TABLE, range: 1_000_000 },
  },
  {
    title: 'since October by update time, a status',
    caller: 'administrator',
    filters: { status: 'PAYMENT_COMPLETED', createdFrom: utc(2026, 10) },
    sort: ['updatedAt,asc'],
    sizes: { matching: 300_000, table: TABLE, range: 420_000 },
  },
  {
    title: 'a year by update time, sorted whole',
    caller: 'administrator',
    filters: { createdFrom: utc(2025, 1), createdBefore: utc(2026, 1) },
    sort: ['status,asc', 'updatedAt,desc'],
    sizes: { matching: 5_000_000, table: TABLE, range: 5_000_000 },
  },
  {
    title: 'the next page of completed orders by price',
    caller: 'administrator',
    filters: { status: 'PAYMENT_COMPLETED' },
    sort: ['totalPrice,asc'],
    followed: 'after',
    sizes: { matching: 7_000_000, table: TABLE, range: TABLE },
  },
  {
    title: 'the previous page of a month by update time',
    caller: 'administrator',
    filters: { createdFrom: utc(2025, 6), createdBefore: utc(2025, 7) },
    sort: ['updatedAt,desc'],
    followed: 'before',
    sizes: { matching: 420_000, table: TABLE, range: 420_000 },
  },
  {
    title: 'the next page of a member’s orders',
    caller: 'member',
    followed: 'after',
    sizes: { matching: 60, table: TABLE, range: 0 },
  },
  {
    title: 'refunds, newest first, page 100,000: read from the day holding it',
    caller: 'administrator',
    filters: { status: 'REFUNDED' },
    page: 100_000,
    sizes: { matching: 2_500_000, table: TABLE, range: TABLE },
    bounds: [20_028, 20_753],
  },
  {
    title: 'a status within a year, oldest first, page 30,000: read from the day holding it',
    caller: 'administrator',
    filters: { status: 'PAYMENT_COMPLETED', createdFrom: utc(2025, 1, 1) + 9 * 3_600_000, createdBefore: utc(2026, 1) },
    sort: ['createdAt,asc'],
    page: 30_000,
    sizes: { matching: 1_400_000, table: TABLE, range: 5_000_000 },
  },
  {
    title: 'every order by price, the last page: read from the end',
    caller: 'administrator',
    sort: ['totalPrice,asc'],
    page: 500_000,
    sizes: { matching: TABLE, table: TABLE, range: TABLE },
  },
  {
    title: 'every order by update time, the middle: too far from both ends',
    caller: 'administrator',
    sort: ['updatedAt,desc'],
    page: 250_000,
    sizes: { matching: TABLE, table: TABLE, range: TABLE },
  },
  {
    title: 'an export of a concert’s orders by price, in two batches',
    caller: 'administrator',
    filters: { concertId: 7 },
    sort: ['totalPrice,desc'],
    exported: true,
    sizes: { matching: 1_500, table: TABLE, range: TABLE },
  },
];

/** A DataSource whose entities' metadata is built without connecting: its query builder writes SQL, and nothing is sent. */
class OfflineDataSource extends DataSource {
  async withMetadata(): Promise<this> {
    await this.buildMetadatas();
    return this;
  }
}

export interface Sent {
  kind: StatementKind | 'snapshot';
  sql: string;
  parameters: unknown[];
}

/** A sort key's value in a followed link: plausible for its field, so that the parameters read as a real walk's. */
const SEEK_VALUES: Record<SortKey['field'], number | string> = {
  orderId: 4_200_000,
  userId: 42,
  concertId: 7,
  totalPrice: 120.5,
  status: 'PAYMENT_COMPLETED',
  createdAt: utc(2025, 6, 14),
  updatedAt: utc(2025, 6, 14),
};

const row = (id: number): OrderRow => ({
  id,
  userId: 42,
  concertId: 7,
  totalPrice: 120.5,
  status: 'PAYMENT_COMPLETED',
  createdAt: '2025-06-14 12:00:00.000',
  updatedAt: '2025-06-14 12:30:00.000',
  newestOrderId: 9_999_999,
});

/**
 * The rows a page statement answers: a full page and one more where more match, so that the service goes on to
 * count, to read the seats and, for an export, to read its next batch.
 */
function pageRows(request: ListingRequest, pagesRead: number): OrderRow[] {
  const size = request.size ?? 20;
  const { matching } = request.sizes;
  const [limit, skipped] = request.exported
    ? [EXPORT_BATCH_SIZE + 1, pagesRead * EXPORT_BATCH_SIZE]
    : [request.followed ? size + 1 : size, ((request.page ?? 1) - 1) * size];
  const count = Math.max(0, Math.min(limit, matching - skipped));
  return Array.from({ length: count }, (_, at) => row(5_000 - skipped - at));
}

/** The day counts' answer: the matches spread evenly over the seeded data's 730 days (from 2024-11-01). */
function dayRows(matching: number): Array<{ day: number; orders: number }> {
  const days = 730;
  return Array.from({ length: days }, (_, index) => ({
    day: 20_028 + index,
    orders: Math.floor(matching / days) + (index < matching % days ? 1 : 0),
  }));
}

const MEMBER: Caller = { id: 42, role: Role.User };
const ADMINISTRATOR: Caller = { id: 1, role: Role.Admin };

const dateOf = (epochMs: number) => new Date(epochMs).toISOString().slice(0, 10);

function describeRequest(request: ListingRequest, sort: SortKey[]): string {
  const { filters = {} } = request;
  const parts = [
    filters.concertId !== undefined && `concert ${filters.concertId}`,
    filters.status && `status ${filters.status}`,
    filters.createdFrom !== undefined && `created from ${dateOf(filters.createdFrom)}`,
    filters.createdBefore !== undefined && `created before ${dateOf(filters.createdBefore)}`,
  ].filter(Boolean);
  const how = request.exported
    ? 'an export'
    : request.followed
      ? `a followed link (${request.followed})`
      : `page ${request.page ?? 1} of ${request.size ?? 20}`;
  return [
    request.caller === 'member' ? `a member (${MEMBER.id})` : 'an administrator',
    parts.length > 0 ? parts.join(', ') : 'no filter',
    `sort ${sort.map(({ field, direction }) => `${field} ${direction.toLowerCase()}`).join(', ')}`,
    how,
  ].join('; ');
}

interface Server {
  kind: ServerKind;
  dataSource: DataSource;
  /** As the server's catalog reads with this many orders in its table. */
  catalog: (orders: number) => ServerCatalog;
  planner?: QueryPlanner;
}

/** Past it, a sort no index of a server reads in order is not sent to that server (DB_FULL_SORT_MAX_ORDERS' default). */
const FULL_SORT_MAX_ORDERS = 1_000_000;

async function serverOf(kind: ServerKind): Promise<Server> {
  const options: DataSourceOptions =
    kind === 'embedded'
      ? { type: 'sqljs', entities: ORDER_ENTITIES }
      : { type: 'mysql', database: 'orders', entities: ORDER_ENTITIES };
  const dataSource = await new OfflineDataSource(options).withMetadata();
  if (kind === 'embedded') {
    return { kind, dataSource, catalog: () => EMBEDDED_CATALOG };
  }
  const schema: OrdersIndex[] = dataSource.getMetadata(Order).indices.map((index) => ({
    name: index.name ?? '',
    columns: index.columns.map((column) => column.propertyName as OrdersIndex['columns'][number]),
  }));
  const indexes = kind === 'replica' ? [...schema, ...REPLICA_INDEXES] : schema;
  const held = new Set(['PRIMARY', ...indexes.map(({ name }) => name)]);
  return {
    kind,
    dataSource,
    catalog: (orders) => ({
      embedded: false,
      indexes: () => held,
      estimatedRows: () => orders,
      readsOneSnapshot: true,
    }),
    planner: new QueryPlanner(indexes),
  };
}

/** Sends one request of the catalogue through the service to a session that records each statement and answers it. */
async function sendRequest(server: Server, request: ListingRequest): Promise<{ sent: Sent[]; outcome: string }> {
  const sent: Sent[] = [];
  const catalog = server.catalog(request.sizes.table);
  // The kinds of the statements the repository is sending, in order: a round trip may carry several (`count+seats`).
  let kinds: string[] = ['page'];
  let pagesRead = 0;
  /** What the server answers each statement of the request, by its kind. */
  const answer = (kind: string, statement: string): unknown => {
    if (kind === 'page') return pageRows(request, pagesRead++);
    if (kind === 'count' && statement.includes('dayNumber')) return dayRows(request.sizes.matching);
    if (kind === 'count') {
      const { matching, table, range } = request.sizes;
      return [
        {
          total: matching,
          tableWholeDays: table,
          tableUnfolded: 0,
          rangeOrders: range,
          firstCreated: FIRST_CREATED,
          lastCreated: LAST_CREATED,
          lowestBound: request.bounds?.[0] ?? null,
          highestBound: request.bounds?.[1] ?? null,
        },
      ];
    }
    return [];
  };
  // The service's own ReadSession sends each statement: what it sends around them (a snapshot begun and ended in
  // their round trips, or ended on its own) is recorded as sent. The server answers each statement of a round trip.
  // On the embedded database, the statements of a round trip come one at a time.
  const runner = {
    query: (sql: string, parameters: unknown[]) => {
      const answered: string[] = [];
      const results = sql.split(STATEMENT_SEPARATOR).map((statement) => {
        if (isSnapshotStatement(statement)) return {};
        const kind = kinds.length > 1 ? (kinds.shift() as string) : kinds[0];
        answered.push(kind);
        return answer(kind, statement);
      });
      sent.push({
        kind: answered.length === 0 ? 'snapshot' : (answered.join('+') as StatementKind),
        sql,
        // A snapshot ended on its own is sent without any.
        parameters: parameters ?? [],
      });
      return Promise.resolve(results.length === 1 ? results[0] : results);
    },
  } as unknown as QueryRunner;
  const answering = { catalog, health: { answering: true }, timings: new StatementTimings(new MonotonicClock()) };
  // Each statement's kind, as the service names it, says how the catalogue's server answers it.
  const observer = {
    started: (kind: StatementKind) => {
      kinds = kind.split('+');
      return () => undefined;
    },
  };
  const connect = async <T>(
    work: (session: ReadSession) => Promise<T>,
    { required }: ReadRequirements = {},
  ): Promise<T> => {
    if (!holds(catalog, required)) throw new NoCapableServerException();
    const deadline = new RequestDeadline(Number.POSITIVE_INFINITY, new MonotonicClock());
    const session = new ReadSession(runner, deadline, answering as unknown as DatabaseServer, { observer });
    try {
      return await work(session);
    } finally {
      await session.end();
    }
  };
  const reads = {
    unitOfWork: connect,
    pinned: ({ required }: ReadRequirements = {}): PinnedReads => {
      if (!holds(catalog, required)) throw new NoCapableServerException();
      // The catalogue's server never fails: an export stays where it is.
      return {
        batch: (work) => connect(work),
        moveAfter: () => false,
        position: () => Promise.resolve(undefined),
      };
    },
  } as unknown as ReadRouter;
  const { dataSource } = server;
  const shapes = new QueryShapes(dataSource);
  const counts = new CountStatements(dataSource, shapes);
  const config = {
    type: server.planner ? 'mysql' : 'sqlite',
    fullSortMaxOrders: FULL_SORT_MAX_ORDERS,
  } as DatabaseConfig;
  const plans = new PagePlans(dataSource, config, counts, new DayCountStatements(dataSource, shapes));
  const pages = new PageStatements(dataSource, shapes);
  const repository = new OrdersRepository(reads, plans, pages, counts, new SeatStatements(dataSource, shapes));
  // Where a deep page was read from, for the file's reader: the plan shown is that read's.
  let reached: PageReach | undefined;
  const reach = plans.reach.bind(plans);
  plans.reach = (...parameters) =>
    reach(...parameters)?.then((found) => {
      reached = found;
      return found;
    });
  const time = new LocalTimeFormatter('UTC');
  const service = new OrdersService(repository, time);
  const exports = new ExportBatches(repository, time);

  const variant = listingVariantOf(request.caller === 'member' ? MEMBER : ADMINISTRATOR);
  const parsed = parseSort(request.sort ?? [], ADMIN_SORT_FIELDS);
  if (!parsed.ok) throw new Error(`${request.title}: ${parsed.message}`);
  const query: ListOrdersQuery = {
    page: request.page ?? 1,
    size: request.size ?? 20,
    sort: parsed.keys,
    filters: scopedFilters(variant, request.filters ?? {}),
    variant,
    cursor: request.followed && {
      direction: request.followed,
      key: parsed.keys.map(({ field }) => SEEK_VALUES[field]),
      bound: 9_999_999,
    },
    walkScope: 'not read: no link is written',
    echoedParameters: [],
  };
  try {
    if (request.exported) {
      for await (const batch of exports.read(query, new AbortController().signal)) void batch;
    } else {
      await service.list(query);
    }
    if (!reached?.read) return { sent, outcome: planOf(server, request, query) };
    const { filters, sort, offset, limit } = reached.read;
    const from = reached.byDay ? 'read from its day' : reached.reversed ? 'read from the end' : 'read from the start';
    return { sent, outcome: `${planOf(server, request, { ...query, filters, sort }, offset + limit)}, ${from}` };
  } catch (error) {
    if (!(error instanceof ProblemException)) throw error;
    const { status, type } = error.problem;
    return { sent, outcome: `refused: ${status} ${type}${sent.length === 0 ? ', before any statement' : ''}` };
  }
}

/** The plan the repository read the page by, as its planner chooses it on this server, for the file's reader. */
function planOf(server: Server, request: ListingRequest, query: ListOrdersQuery, wanted?: number): string {
  if (!server.planner) return 'the embedded database chooses';
  const { filters } = query;
  const rows = wanted ?? (request.exported ? 1_001 : query.cursor ? query.size + 1 : query.page * query.size);
  const { matching, table, range } = request.sizes;
  const plan = server.planner.plan(
    filters,
    query.sort,
    rows,
    {
      matching,
      table,
      range,
      span: {
        first: Date.parse(`${FIRST_CREATED.replace(' ', 'T')}Z`),
        last: Date.parse(`${LAST_CREATED.replace(' ', 'T')}Z`),
      },
    },
    table > FULL_SORT_MAX_ORDERS ? FULL_SORT_MAX_ORDERS : Number.POSITIVE_INFINITY,
  );
  if (!plan) throw new Error(`${request.title}: no plan although the sizes were given`);
  return `${plan.rule} (${plan.indexes.join(', ')})`;
}

/** The rule of each plan a file shows, to check that the catalogue still reaches every one. */
export function rulesIn(text: string): Set<PlanRule> {
  return new Set([...text.matchAll(/^-- plan: ([a-z-]+) /gm)].map(([, rule]) => rule as PlanRule));
}

/** A list of placeholders (a page's ids), which the formatter puts one to a line, on one line. */
const onOneLine = (sql: string): string =>
  sql.replace(/\(\s*\?(?:,\s*\?)*\s*\)/g, (list) => `(${Array.from(list.matchAll(/\?/g), () => '?').join(', ')})`);

/** A statement as the files show it: laid out for reading, in the dialect of its kind of server. */
export const formattedStatement = (sql: string, kind: ServerKind): string =>
  `${onOneLine(
    format(sql, {
      language: kind === 'embedded' ? 'sqlite' : 'mariadb',
      keywordCase: 'upper',
      paramTypes: { positional: true },
    }),
  )};`;

/** The values in placeholder order; a long list (a page's ids) by its ends and its length. */
function shownParameters(parameters: unknown[]): string {
  if (parameters.length <= 12) return JSON.stringify(parameters);
  const ends = [...parameters.slice(0, 3), parameters.at(-1)].map((value) => JSON.stringify(value));
  return `[${ends.slice(0, 3).join(',')},…,${ends[3]}] (${parameters.length} values)`;
}

const HEADER: Record<ServerKind, string> = {
  embedded: 'the embedded database (SQLite through sql.js), which any plan reads at once',
  primary: "a MySQL or MariaDB primary at ten million orders, holding the schema's indexes alone",
  replica: "a MySQL or MariaDB replica at ten million orders, holding the replicas' own indexes besides",
};

/**
 * Every statement the listing sends for the catalogue's requests, on one kind of server, as checked in. Generated by
 * `npm run sql:generate`; `listing-sql.spec.ts` fails when the code would send something else.
 */
export async function listingSql(kind: ServerKind): Promise<string> {
  const server = await serverOf(kind);
  const sections: string[] = [
    [
      `-- The statements the order listing sends to ${HEADER[kind]}.`,
      '-- Generated by `npm run sql:generate` from the code; a test fails when they differ from what it sends.',
      '-- One request per way a statement is built and per plan; others differ from one of these only in which of the',
      '-- same conditions are present, the ORDER BY keys and the index named. Each block is one round trip: a snapshot',
      "-- begins and ends in the round trips of the request's own statements.",
    ].join('\n'),
  ];
  for (const request of REQUESTS) {
    const { sent, outcome } = await sendRequest(server, request);
    const sort = parseSort(request.sort ?? [], ADMIN_SORT_FIELDS);
    const lines = [
      `-- ${request.title}`,
      `-- ${describeRequest(request, sort.ok ? sort.keys : [])}`,
      `-- counts answer: ${request.sizes.matching} matching, ${request.sizes.table} in the table, ${request.sizes.range} in the range's days${request.bounds ? `, every match between ${request.bounds[0]} and ${request.bounds[1]} in the sort's column, where asked` : ''}`,
      outcome.startsWith('refused') ? `-- ${outcome}` : `-- plan: ${outcome}`,
    ];
    for (const { kind: statementKind, sql, parameters } of sent) {
      lines.push('', `-- ${statementKind}, parameters: ${shownParameters(parameters)}`, formattedStatement(sql, kind));
    }
    sections.push(lines.join('\n'));
  }
  await server.dataSource.destroy().catch(() => undefined);
  return `${sections.join('\n\n')}\n`;
}

/**
 * Every round trip the catalogue's requests send on one kind of server, with `plant` given each request's filters
 * first: what the service's pool (several statements per round trip, docs/adr/0020) would run.
 */
export async function roundTripsOf(kind: ServerKind, plant: (filters: OrderFilters) => OrderFilters): Promise<Sent[]> {
  const server = await serverOf(kind);
  try {
    const trips: Sent[] = [];
    for (const request of REQUESTS) {
      const { sent } = await sendRequest(server, { ...request, filters: plant(request.filters ?? {}) });
      trips.push(...sent);
    }
    return trips;
  } finally {
    await server.dataSource.destroy().catch(() => undefined);
  }
}
