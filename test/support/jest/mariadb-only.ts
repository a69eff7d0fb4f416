import { describe } from '@jest/globals';
import { throwawayServerKind } from '../../../launchers/mysql-server';

const NEEDS = "MariaDB's GTID replication: MASTER_USE_GTID, gtid_slave_pos, MASTER_GTID_WAIT";

/**
 * A suite that starts replicated servers of its own with MariaDB's GTID replication. Where the only server the tests
 * can start is MySQL, it is skipped, printing what it needs; with no server at all it runs and fails, naming what to
 * install (docs/DEVELOPING.md, "MySQL 8").
 */
export function describeReplicated(title: string, suite: () => void): void {
  if (throwawayServerKind() !== 'mysql') {
    describe(title, suite);
    return;
  }
  console.warn(`Skipped: "${title}" needs ${NEEDS}, and only mysqld can be started here.`);
  describe.skip(`${title} [skipped: needs ${NEEDS}]`, suite);
}
