import { describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import type { PlanRule } from '../../../src/orders/read-plan';
import { LISTING_SQL_FILES, SERVER_KINDS, listingSql, rulesIn } from './listing-sql';

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
});
