import { describe, expect, it } from '@jest/globals';
import { catalogOf, isolationWarning, type CatalogRow, type IsolationRow } from './server-catalog';

const ORDERS: CatalogRow[] = [{ tableName: 'orders', estimatedRows: 10, indexName: 'PRIMARY' } as CatalogRow];
const isolation = (name: string, value: string) => [{ Variable_name: name, Value: value } as IsolationRow];

describe('a server catalog’s isolation (docs/adr/0020)', () => {
  it('reads one snapshot at REPEATABLE READ or SERIALIZABLE, by either dialect’s name, and says nothing', () => {
    for (const rows of [
      isolation('tx_isolation', 'REPEATABLE-READ'),
      isolation('transaction_isolation', 'REPEATABLE-READ'),
      isolation('tx_isolation', 'SERIALIZABLE'),
    ]) {
      expect(catalogOf(ORDERS, rows).readsOneSnapshot).toBe(true);
      expect(isolationWarning('replica-1', rows)).toBeUndefined();
    }
  });

  it('reads none below it, and warns naming the variable and its value', () => {
    for (const value of ['READ-COMMITTED', 'READ-UNCOMMITTED']) {
      const rows = isolation('tx_isolation', value);
      expect(catalogOf(ORDERS, rows).readsOneSnapshot).toBe(false);
      expect(isolationWarning('replica-1', rows)).toMatch(
        new RegExp(
          `^replica-1 starts its sessions at ${value} \\(tx_isolation\\):.*set tx_isolation back to REPEATABLE-READ$`,
        ),
      );
    }
  });

  it('assumes none while the isolation is not known', () => {
    expect(catalogOf(ORDERS, []).readsOneSnapshot).toBe(false);
    expect(isolationWarning('replica-1', [])).toBeUndefined();
  });
});
