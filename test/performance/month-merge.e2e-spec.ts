import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { DataSource } from 'typeorm';
import { OrderCountFolding } from '../../src/orders/counting/order-count-folding';
import { QueryPlanner, type QueryPlan } from '../../src/orders/query-plan';
import { applyReplicaIndexes } from '../../src/orders/replica-structures';
import { generateOrders } from '../../src/orders/seeding/order-generator';
import { writeOrders } from '../../src/orders/seeding/order-writer';
import { StatementRecorder, type PlanRow, type RecordedStatement } from '../support/app/statement-recorder';
import {
  freshMysqlDatabase,
  maintenanceOptions,
  mysqlEnvironment,
  type MysqlTarget,
} from '../support/app/test-database';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { adminToken } from '../support/app/tokens';
import { seoul } from '../support/data/dataset';
import { api } from '../support/app/api-client';

const stored = (epochMs: number) => new Date(epochMs).toISOString().slice(0, 23).replace('T', ' ');
const WALKED = /^idx_replica_orders_month_updated$/;
const SORTED = 'idx_replica_orders_created_updated';

/** A date range of the back-office, as the API takes it and as the plain SQL states it (Asia/Seoul dates). */
const SHAPES: Array<{ query: string; where: string; values: unknown[]; months: number }> = [
  {
    query: 'orderStatus=PAYMENT_COMPLETED&startDate=2025-01-01&endDate=2025-12-31',
    where: "status = 'PAYMENT_COMPLETED' AND created_at >= ? AND created_at < ?",
    values: [stored(seoul(2025, 1, 1)), stored(seoul(2026, 1, 1))],
    months: 12,
  },
  {
    query: 'orderStatus=PAYMENT_PENDING&endDate=2025-03-31',
    where: "status = 'PAYMENT_PENDING' AND created_at < ?",
    values: [stored(seoul(2025, 4, 1))],
    months: 5,
  },
  { query: 'startDate=2026-10-01', where: 'created_at >= ?', values: [stored(seoul(2026, 10, 1))], months: 1 },
  {
    query: 'startDate=2025-06-01&endDate=2025-06-30',
    where: 'created_at >= ? AND created_at < ?',
    values: [stored(seoul(2025, 6, 1)), stored(seoul(2025, 7, 1))],
    months: 1,
  },
];

/**
 * docs/API.md §14 on MariaDB: a date range sorted by update time, on a server holding the replicas' month index,
 * is read as one statement merging a walk of each month in update order (no sort of the month's entries) with
 * the range's edges, sorted; and it answers the plain query's rows in the same order, on any page.
 */
describe('a date range sorted by update time, merged by month', () => {
  let target: MysqlTarget;
  let context: TestApp;
  const recorder = new StatementRecorder();
  let planner: jest.Spied<QueryPlanner['plan']>;
  const lastPlan = () => planner.mock.results.at(-1)?.value as QueryPlan | undefined;

  beforeAll(async () => {
    target = await freshMysqlDatabase('merge');
    const maintenance = new DataSource(maintenanceOptions(target));
    await maintenance.initialize();
    try {
      await writeOrders(
        maintenance,
        generateOrders({
          orders: 20_000,
          members: 1_000,
          concerts: 50,
          days: 730,
          endMs: Date.UTC(2026, 10, 1),
          seed: 5,
        }),
      );
      // This server stands for a replica: the structures the migration command gives replicas.
      const runner = maintenance.createQueryRunner();
      try {
        await applyReplicaIndexes(runner);
      } finally {
        await runner.release();
      }
      await maintenance.query('ANALYZE TABLE orders');
    } finally {
      await maintenance.destroy();
    }
    // Below a month's orders: a month read whole and sorted would be refused, so only the merge serves.
    context = await startTestApp({
      ...mysqlEnvironment(target),
      RATE_LIMIT_PER_MINUTE: '0',
      DB_FULL_SORT_MAX_ORDERS: '300',
    });
    const folding = context.app.get(OrderCountFolding);
    await folding.foldPending();
    await folding.stop();
    Object.assign(context.dataSource, { logger: recorder });
    planner = jest.spyOn(QueryPlanner.prototype, 'plan');
  }, 120_000);

  afterAll(async () => {
    planner?.mockRestore();
    await context?.close();
  });

  const explain = (statement: RecordedStatement) =>
    context.dataSource.query<PlanRow[]>(`EXPLAIN ${statement.sql}`, statement.parameters);

  describe.each(SHAPES)('$query', (shape) => {
    it.each([
      ['updatedAt,desc', 'updated_at DESC, id DESC'],
      ['updatedAt,asc', 'updated_at ASC, id ASC'],
    ])(
      'sorted by %s: a walk of each month and the edges sorted, with the plain query’s rows',
      async (sort, orderBy) => {
        for (const page of [1, 4]) {
          planner.mockClear();
          recorder.statements = [];
          const response = await api(context.server, adminToken()).get(
            `/orders?${shape.query}&sort=${sort}&page=${page}&size=20`,
          );
          expect(response.status).toBe(200);
          const plan = lastPlan();
          expect(plan?.rule).toBe('month-merge');
          expect(plan?.branches?.filter((branch) => branch.kind === 'walk')).toHaveLength(shape.months);

          const merged = recorder.statements.find((statement) => /UNION ALL/.test(statement.sql));
          expect(merged).toBeDefined();
          // One row per branch, each reading its own alias (m0, m1, …) of `orders`.
          const branches = (await explain(merged!))
            .filter((row) => /^m\d+$/.test(row.table ?? ''))
            .sort((a, b) => Number(a.table.slice(1)) - Number(b.table.slice(1)));
          expect(branches).toHaveLength(plan?.branches?.length ?? -1);
          plan?.branches?.forEach((branch, position) => {
            const row = branches[position];
            if (branch.kind === 'walk') {
              // Read in the index's order: the month's entries are not sorted, the walk stops with the page.
              expect(row.key).toMatch(WALKED);
              expect(row.Extra ?? '').not.toMatch(/filesort/);
            } else {
              expect(row.key).toBe(SORTED);
            }
          });

          const [rows] = [
            await context.dataSource.query<Array<{ id: string | number }>>(
              `SELECT id FROM orders WHERE ${shape.where} ORDER BY ${orderBy} LIMIT 20 OFFSET ?`,
              [...shape.values, (page - 1) * 20],
            ),
          ];
          const expected = rows.map((row) => Number(row.id));
          expect(expected).toHaveLength(20);
          expect(
            (response.body as { elements: Array<{ orderId: number }> }).elements.map((order) => order.orderId),
          ).toEqual(expected);
        }
      },
    );
  });
});
