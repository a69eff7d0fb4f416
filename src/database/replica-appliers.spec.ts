import { describe, expect, it, jest } from '@jest/globals';
import type { RowDataPacket } from 'mysql2/promise';
import { readAppliers, singleApplierWarning } from './replica-appliers';

const unknownVariable = () => Object.assign(new Error('Unknown system variable'), { errno: 1193 });

describe('a replica’s applier threads (docs/adr/0018)', () => {
  it('reads MariaDB’s variable first', async () => {
    // MariaDB knows its own name: the first statement answers.
    const query = jest.fn((_sql: string) => Promise.resolve([{ threads: 4 }] as RowDataPacket[]));
    await expect(readAppliers(query)).resolves.toEqual({ variable: 'slave_parallel_threads', threads: 4 });
    expect(query.mock.calls.map(([sql]) => sql)).toEqual(['SELECT @@global.slave_parallel_threads AS threads']);
  });

  it('falls back to MySQL 8’s where MariaDB’s name is unknown', async () => {
    // MySQL refuses MariaDB's name as an unknown system variable and answers its own.
    const query = jest.fn((sql: string) =>
      sql.includes('slave_parallel_threads')
        ? Promise.reject(unknownVariable())
        : Promise.resolve([{ threads: '0' }] as RowDataPacket[]),
    );
    await expect(readAppliers(query)).resolves.toEqual({ variable: 'replica_parallel_workers', threads: 0 });
  });

  it('knows nothing where neither name is known, and lets any other failure through', async () => {
    await expect(readAppliers(() => Promise.reject(unknownVariable()))).resolves.toBeUndefined();
    const lost = Object.assign(new Error('Connection lost'), { code: 'PROTOCOL_CONNECTION_LOST' });
    await expect(readAppliers(() => Promise.reject(lost))).rejects.toBe(lost);
  });

  it('warns, naming the variable and the option file, only of a single thread', () => {
    for (const threads of [0, 1]) {
      expect(singleApplierWarning('replica-2', { variable: 'slave_parallel_threads', threads })).toBe(
        `replica-2 applies the primary's writes with a single thread (slave_parallel_threads=${threads}): it falls ` +
          "behind a sale taken at the primary's full speed; run it with deploy/mariadb/replica.cnf, which sets " +
          'slave_parallel_threads to 4',
      );
    }
    expect(singleApplierWarning('replica-1', { variable: 'replica_parallel_workers', threads: 4 })).toBeUndefined();
  });
});
