import { describe, expect, it, jest } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import type { OrderFilters } from '../../../src/orders/model';
import type { PlanRule } from '../../../src/orders/query-plan';
import { format } from 'mysql2';
import { QueryShapes } from '../../../src/database/query-shapes';
import { SNAPSHOT_STATEMENTS, STATEMENT_SEPARATOR } from '../../../src/database/read-session';
import { LISTING_SQL_FILES, SERVER_KINDS, listingSql, roundTripsOf, rulesIn } from './listing-sql';

/** Every rule the planner has: the record's type makes a rule added to PlanRule a compile error here until listed. */
const RULES: Record<PlanRule, true> = {
  'member-or-concert': true,
  'index-order': true,
  walk: true,
  'filter-index': true,
  'table-scan': true,
  'month-merge': true,
};

/**
 * The SQL checked in under src/orders/sql is what the code sends: a change to a statement shows in the diff of a
 * pull request, where a reviewer reads it, or this fails.
 */
describe('the listing’s statements, as checked in', () => {
  it.each(SERVER_KINDS)('are what the code sends to the %s server', async (kind) => {
    const [generated, checkedIn] = await Promise.all([listingSql(kind), readFile(LISTING_SQL_FILES[kind], 'utf8')]);
    if (generated !== checkedIn) {
      throw new Error(
        `${LISTING_SQL_FILES[kind]} differs from the statements the code sends: run \`npm run sql:generate\` and review the diff.`,
      );
    }
  });

  it('show every plan the planner has, on the primary or the replica', async () => {
    const shown = new Set([...rulesIn(await listingSql('primary')), ...rulesIn(await listingSql('replica'))]);
    expect([...shown].sort()).toEqual(Object.keys(RULES).sort());
  });

  it('show both directions of a followed link, an export and a refusal', async () => {
    const replica = await listingSql('replica');
    expect(replica).toMatch(/followed link \(after\)/);
    expect(replica).toMatch(/followed link \(before\)/);
    expect(replica).toMatch(/; an export$/m);
    expect(replica).toMatch(/^-- refused: 422 /m);
  });

  // A statement's SQL is laid out once per shape and reused for every request of that shape: a builder that read
  // anything but its shape would serve one request another's statement.
  it.each(SERVER_KINDS)(
    'build one statement per shape on the %s server, whichever request comes first',
    async (kind) => {
      const built = new Map<string, string>();
      const clashes: string[] = [];
      // Called below with the instance it belongs to.
      // eslint-disable-next-line @typescript-eslint/unbound-method
      const laidOut = QueryShapes.prototype.laidOut;
      // No shape is known: every statement is built afresh, and what it gives is kept by its shape.
      const known = jest.spyOn(QueryShapes.prototype, 'known').mockReturnValue(undefined);
      const spy = jest.spyOn(QueryShapes.prototype, 'laidOut').mockImplementation(function (
        this: QueryShapes,
        shape,
        query,
        values,
      ) {
        const statement = laidOut.call(this, shape, query, values);
        const key = JSON.stringify(shape);
        if ((built.get(key) ?? statement[0]) !== statement[0]) clashes.push(key);
        built.set(key, statement[0]);
        return statement;
      });
      try {
        await roundTripsOf(kind, (filters) => filters);
      } finally {
        spy.mockRestore();
        known.mockRestore();
      }
      expect(built.size).toBeGreaterThan(10);
      expect(clashes).toEqual([]);
    },
  );

  // The service's pool runs several statements per round trip (docs/adr/0020, 0022): none of them may come from input.
  it.each(['primary', 'replica'] as const)(
    'send on the %s only their own text, every value bound, however hostile the value',
    async (kind) => {
      const HOSTILE = "PAID'; DELETE FROM orders; -- \\";
      const trips = await roundTripsOf(kind, (filters) => ({ ...filters, status: HOSTILE as OrderFilters['status'] }));
      expect(trips.length).toBeGreaterThan(20);
      expect(trips.some(({ kind }) => kind === 'count+seats')).toBe(true);
      for (const { kind, sql, parameters } of trips) {
        const own = sql.split(STATEMENT_SEPARATOR);
        // Besides the snapshot's, the statements the round trip is labelled with, whose text never holds a value.
        const statements = own.filter((statement) => !Object.values<string>(SNAPSHOT_STATEMENTS).includes(statement));
        expect(statements).toHaveLength(kind === 'snapshot' ? 0 : kind.split('+').length);
        expect(sql).not.toContain('DELETE');
        // As mysql2 sends it, the value is one quoted literal: outside literals no statement separator appears.
        const literalsOut = format(sql, parameters as Parameters<typeof format>[1]).replace(/'(?:[^'\\]|\\.)*'/g, "''");
        expect(literalsOut.split(';').length).toBe(own.length);
      }
    },
  );
});
