import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { generateOrders } from '../../src/orders/seeding/order-generator';
import { writeOrders } from '../../src/orders/seeding/order-writer';
import { OrderCountFolding } from '../../src/orders/counting/order-count-folding';
import { STATEMENT_SEPARATOR } from '../../src/database/read-session';
import { PRIMARY_KEY } from '../../src/orders/index-fit';
import { QueryPlanner, type PlanRule, type QueryPlan } from '../../src/orders/query-plan';
import { LISTING_SQL_FILES, formattedStatement } from '../support/sql/listing-sql';
import { freshMysqlDatabase, mysqlEnvironment } from '../support/app/test-database';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { adminToken, userToken } from '../support/app/tokens';
import {
  ownStatement,
  StatementRecorder,
  type PlanRow,
  type RecordedStatement as Statement,
} from '../support/app/statement-recorder';
import { api } from '../support/app/api-client';

const FILTERS = {
  userId: 'userId=1',
  concertId: 'consertId=7',
  status: 'orderStatus=PAYMENT_COMPLETED',
  dates: 'startDate=2025-06-01&endDate=2025-12-31',
} as const;
const FILTER_NAMES = Object.keys(FILTERS) as Array<keyof typeof FILTERS>;
const combinations = Array.from({ length: 2 ** FILTER_NAMES.length }, (_, mask) =>
  FILTER_NAMES.filter((_, bit) => mask & (1 << bit)),
);
/** A total is counted either from `orders` or from the per-day totals plus the partial edge days. */
const isCount = (sql: string) => /COUNT\(\*\)|order_daily_counts/.test(sql);

/**
 * What the database does with the service's own statements (captured as sent,
 * then EXPLAINed) on 40,000 orders: the page's ids are read from an index
 * range in order — no filesort, no temporary table, no full scan — for every
 * filter combination with the default sort and for each single sort key; and
 * a request costs at most three statements.
 */
describe('query plans and statements on MariaDB', () => {
  let context: TestApp;
  const recorder = new StatementRecorder();

  beforeAll(async () => {
    context = await startTestApp({
      ...mysqlEnvironment(await freshMysqlDatabase('plans')),
      RATE_LIMIT_PER_MINUTE: '0',
    });
    await writeOrders(
      context.dataSource,
      generateOrders({
        orders: 40_000,
        members: 2_000,
        concerts: 100,
        days: 730,
        endMs: Date.UTC(2026, 10, 1),
        seed: 3,
      }),
    );
    await context.dataSource.query('ANALYZE TABLE orders, order_seats');
    // The background fold's statements would be recorded among a request's; fold the load now and stop it.
    const folding = context.app.get(OrderCountFolding);
    await folding.foldPending();
    await folding.stop();
    Object.assign(context.dataSource, { logger: recorder });
  }, 120_000);

  afterAll(async () => {
    await context?.close();
  });

  async function statementsOf(token: string, query: string): Promise<Statement[]> {
    recorder.statements = [];
    const response = await api(context.server, token).get(`/orders?${query}`);
    expect(response.status).toBe(200);
    return [...recorder.statements];
  }

  const explain = (statement: Statement) =>
    context.dataSource.query<PlanRow[]>(`EXPLAIN ${ownStatement(statement.sql)}`, statement.parameters);
  // The page's ids joined back to their rows (the count's day bounds are a derived table too, joined otherwise).
  const pageStatement = (statements: Statement[]) =>
    statements.find((statement) => /\) `p` ON p\.id = `o`\.`id`/.test(statement.sql));
  const describePlan = (plan: PlanRow[]) =>
    plan.map((row) => `${row.select_type} ${row.table} ${row.type} ${row.key} [${row.Extra}]`).join(' | ');

  /**
   * The derived table pages the ids; it is where the index must be read in
   * order. The outer query only re-sorts the page's own rows (size ≤ 100),
   * which is what a deferred join costs.
   */
  function expectIdsReadInOrder(plan: PlanRow[]): void {
    const derived = plan.filter((row) => row.select_type === 'DERIVED');
    expect(derived).toHaveLength(1);
    for (const row of derived) {
      expect({ plan: describePlan(plan), extra: row.Extra ?? '' }).toEqual({
        plan: describePlan(plan),
        extra: expect.not.stringMatching(/filesort|temporary/),
      });
      expect({ plan: describePlan(plan), type: row.type }).toEqual({
        plan: describePlan(plan),
        type: expect.not.stringMatching(/^ALL$/),
      });
    }
  }

  it.each(combinations.map((names) => [names.length > 0 ? names.join(' + ') : 'no filter', names] as const))(
    'pages %s with the default sort from an index, and counts without a full scan',
    async (_, names) => {
      const query = [...names.map((name) => FILTERS[name]), 'size=1', 'page=2'].join('&');
      const statements = await statementsOf(adminToken(), query);
      const page = pageStatement(statements);
      expect(page).toBeDefined();
      expectIdsReadInOrder(await explain(page as Statement));
      const count = statements.find((statement) => isCount(statement.sql));
      expect(count).toBeDefined();
      for (const row of await explain(count as Statement)) {
        // The per-day totals hold a few rows per day, and the changes and moves not folded yet about a second's
        // worth of writes: reading them whole (for the matches, the whole table, the dates' range and the day bounds,
        // `b` and the derived table that gathers them) is the point of keeping them. A row of no table reads none (a
        // day bound taken from the ends of an index).
        if (!row.table || ['d', 'c', 'm', 't', 'u', 'r', 'b'].includes(row.table) || row.table.startsWith('<'))
          continue;
        expect({ table: row.table, type: row.type, extra: row.Extra ?? '' }).toEqual({
          table: row.table,
          type: expect.not.stringMatching(/^ALL$/),
          extra: expect.not.stringMatching(/temporary/),
        });
      }
    },
  );

  // The other single-key sorts of an unfiltered listing have no index of their own: each would cost every order
  // placed and paid more than its rare query gains (docs/adr/0010).
  it.each(['createdAt,desc', 'orderId,asc', 'orderId,desc'])(
    'pages an unfiltered listing sorted by %s from an index',
    async (sort) => {
      expectIdsReadInOrder(await explain(pageStatement(await statementsOf(adminToken(), `sort=${sort}`)) as Statement));
    },
  );

  it('pages a member’s orders with the default sort from an index', async () => {
    expectIdsReadInOrder(await explain(pageStatement(await statementsOf(userToken(1), '')) as Statement));
  });

  it.each([
    ['a member’s first page', () => userToken(1), '', 1],
    ['an administrator’s first page of 100', () => adminToken(), 'size=100', 1],
    ['every filter at once', () => adminToken(), Object.values(FILTERS).join('&'), 1],
    // docs/API.md §22: counted first, in the snapshot its page is read in.
    ['a deep page', () => adminToken(), 'page=1500', 1],
    // Counted first: past the end, no page is read.
    ['a page past the end', () => adminToken(), 'page=100000', 0],
  ])(
    'answers %s in at most three round trips and statements: page, count and seats',
    async (_, token, query, pages) => {
      const statements = await statementsOf(token(), query);
      expect(statements.length).toBeLessThanOrEqual(3);
      const own = statements.flatMap(({ sql }) => ownStatement(sql).split(STATEMENT_SEPARATOR)).filter(Boolean);
      expect(own.length).toBeLessThanOrEqual(3);
      expect(statements.filter((statement) => /INNER JOIN \(SELECT/.test(statement.sql))).toHaveLength(pages);
      expect(statements.filter((statement) => isCount(statement.sql)).length).toBeLessThanOrEqual(1);
      expect(statements.filter((statement) => /order_seats/.test(statement.sql)).length).toBeLessThanOrEqual(1);
    },
  );

  // The offline generator of src/orders/sql builds statements on a DataSource that never connects: what the service
  // sends to a real server must be among them.
  it('sends a member’s page, then its count and seats together, as src/orders/sql/mysql-primary.sql shows them', async () => {
    const checkedIn = await readFile(LISTING_SQL_FILES.primary, 'utf8');
    const roundTrips = await statementsOf(userToken(1), '');
    expect(roundTrips.map(({ sql }) => sql.split(STATEMENT_SEPARATOR).length)).toEqual([1, 2]);
    const shown = roundTrips
      .flatMap(({ sql }) => sql.split(STATEMENT_SEPARATOR))
      .filter((sql) => !/order_seats/.test(sql));
    expect(shown).toHaveLength(2);
    for (const sql of shown) expect(checkedIn).toContain(formattedStatement(sql, 'primary'));
  });

  it('loads the seats of a page of 100 in one statement, not one per order', async () => {
    const statements = await statementsOf(adminToken(), 'size=100');
    const seats = statements.filter((statement) => /order_seats/.test(statement.sql));
    expect(seats).toHaveLength(1);
    expect(seats[0].parameters).toHaveLength(100);
  });

  describe('the plan the service chooses, and what it answers', () => {
    /** The planner, called through: its rule is not in the SQL, only its index is. */
    let planner: jest.Spied<QueryPlanner['plan']>;
    const lastPlan = () => planner.mock.results.at(-1)?.value as QueryPlan | undefined;
    beforeAll(() => {
      planner = jest.spyOn(QueryPlanner.prototype, 'plan');
    });
    afterAll(() => {
      planner.mockRestore();
    });

    const YEAR = 'startDate=2025-01-01&endDate=2025-12-31';
    const MONTH = 'startDate=2025-06-01&endDate=2025-06-30';
    // Shares of the 40,000 orders: completed 70 %, refunded 8 %, a year 50 %, a month 4 %.
    it.each([
      ['member-or-concert', 'userId=1&sort=totalPrice,desc', 'idx_orders_user_created'],
      [
        'member-or-concert',
        'consertId=7&orderStatus=PAYMENT_COMPLETED&sort=updatedAt,asc',
        'idx_orders_concert_created',
      ],
      // No index holds status: a status is listed by walking the dates in the sort's order, each row checked.
      ['walk', `orderStatus=REFUNDED&${YEAR}`, 'idx_orders_created'],
      ['walk', 'orderStatus=REFUNDED&sort=status,desc&sort=createdAt,asc&sort=orderId,asc', 'idx_orders_created'],
      ['walk', `orderStatus=PAYMENT_COMPLETED&${YEAR}&sort=createdAt,asc&sort=orderId,asc`, 'idx_orders_created'],
      ['walk', 'orderStatus=PAYMENT_COMPLETED&sort=orderId,desc', PRIMARY_KEY],
      ['filter-index', `${MONTH}&sort=updatedAt,desc`, 'idx_orders_created'],
      // A month's 1,600 orders looked up to find its pending ones cost about half a scan of the 40,000.
      ['filter-index', `orderStatus=PAYMENT_PENDING&${MONTH}&sort=totalPrice,asc`, 'idx_orders_created'],
      ['table-scan', `orderStatus=PAYMENT_COMPLETED&${YEAR}&sort=updatedAt,desc`, PRIMARY_KEY],
      ['table-scan', 'sort=userId,asc', PRIMARY_KEY],
    ] as Array<[PlanRule, string, string]>)(
      '%s: %s reads through %s, and answers what the plain query does',
      async (rule, query, index) => {
        for (const page of [1, 5]) {
          planner.mockClear();
          recorder.statements = [];
          const response = await api(context.server, adminToken()).get(`/orders?${query}&page=${page}&size=20`);
          expect(response.status).toBe(200);
          expect(lastPlan()?.rule).toBe(rule);
          const statement = pageStatement(recorder.statements) as Statement;
          const indexes = lastPlan()?.indexes ?? [];
          expect(indexes).toEqual([index]);
          expect(statement.sql).toContain(`USE INDEX (${indexes.map((index) => `\`${index}\``).join(', ')})`);

          // The server takes the hint: the derived table reads that index, or scans the table in its order.
          const derived = (await explain(statement)).filter((row) => row.select_type === 'DERIVED');
          expect(derived).toHaveLength(1);
          if (rule === 'table-scan') expect(derived[0].type).toBe('ALL');
          else expect(indexes).toContain(derived[0].key);

          // The same statement without the hint is the optimizer's own plan: the same rows in the same order.
          const plain = statement.sql.replace(/ USE INDEX \([^)]+\)/, '');
          expect(plain).not.toBe(statement.sql);
          const ids = (rows: Array<{ id: number | string }>) => rows.map((row) => Number(row.id));
          const expected = ids(await context.dataSource.query(plain, statement.parameters));
          expect(ids(await context.dataSource.query(statement.sql, statement.parameters))).toEqual(expected);
          expect(
            (response.body as { elements: Array<{ orderId: number }> }).elements.map((order) => order.orderId),
          ).toEqual(expected);
          expect(expected).toHaveLength(20);
        }
      },
    );

    it('counts first for a plan that depends on the sizes, and its total is what COUNT(*) finds', async () => {
      recorder.statements = [];
      const response = await api(context.server, adminToken()).get(
        `/orders?orderStatus=PAYMENT_COMPLETED&${YEAR}&sort=updatedAt,desc`,
      );
      expect(response.status).toBe(200);
      const kinds = recorder.statements.map((statement) =>
        isCount(statement.sql) ? 'count' : /INNER JOIN \(SELECT/.test(statement.sql) ? 'page' : 'seats',
      );
      expect(kinds).toEqual(['count', 'page', 'seats']);
      // Every match, by the page statement itself with no limit: its last two parameters are LIMIT and OFFSET.
      const page = pageStatement(recorder.statements) as Statement;
      const [{ total }] = await context.dataSource.query<Array<{ total: string }>>(
        `SELECT COUNT(*) AS total FROM (${page.sql}) every_match`,
        [...page.parameters.slice(0, -2), Number.MAX_SAFE_INTEGER, 0],
      );
      expect(Number(total)).toBeGreaterThan(1000);
      expect((response.body as { totalElementCount: number }).totalElementCount).toBe(Number(total));
    });
  });
});
