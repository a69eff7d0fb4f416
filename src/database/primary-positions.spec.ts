import { describe, expect, it, jest } from '@jest/globals';
import type { DatabaseServer } from './database-server';
import { PrimaryPositions, UnreadablePositionError } from './primary-positions';

/** A primary whose position reads the test answers one at a time, as they come back from the server. */
function primaryAnsweringByHand() {
  const pending: Array<(position: string) => void> = [];
  const readVariable = jest.fn((sql: string) =>
    sql.includes('@@version')
      ? Promise.resolve('10.11.19-MariaDB')
      : new Promise<string>((resolve) => {
          pending.push(resolve);
        }),
  );
  const positionReads = () => readVariable.mock.calls.filter(([sql]) => sql.includes('gtid_binlog_pos')).length;
  return { primary: { readVariable } as unknown as DatabaseServer, pending, positionReads };
}

/** Time stands still here: only the position reads' sharing is under test. */
const clock = { now: () => 0 };

/** Lets the promise chains of the reads settle. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('PrimaryPositions (docs/API.md §19)', () => {
  it('answers a request that came while a read ran with the next read, which serves every request that came meanwhile', async () => {
    const { primary, pending, positionReads } = primaryAnsweringByHand();
    const positions = new PrimaryPositions({ primary }, clock);
    const first = positions.read();
    await settled();
    expect(positionReads()).toBe(1);
    const later = [positions.read(), positions.read(), positions.read()];
    await settled();
    // The running read began before they came: it cannot tell them what the primary had when they came.
    expect(positionReads()).toBe(1);
    pending[0]('0-1-10');
    await expect(first).resolves.toMatchObject({ text: '0-1-10' });
    await settled();
    expect(positionReads()).toBe(2);
    pending[1]('0-1-12');
    for (const read of later) await expect(read).resolves.toMatchObject({ text: '0-1-12' });
    expect(positions.dialect?.flavour).toBe('mariadb');
  });

  it('starts a read of its own for a request that comes when none runs', async () => {
    const { primary, pending, positionReads } = primaryAnsweringByHand();
    const positions = new PrimaryPositions({ primary }, clock);
    const first = positions.read();
    await settled();
    pending[0]('0-1-10');
    await first;
    const next = positions.read();
    await settled();
    expect(positionReads()).toBe(2);
    pending[1]('0-1-11');
    await expect(next).resolves.toMatchObject({ text: '0-1-11' });
  });

  it('fails the requests of a read that failed, and reads afresh for the next', async () => {
    const readVariable = jest
      .fn<(sql: string) => Promise<string>>()
      // The primary answers its version, then refuses the connection once, then answers.
      .mockResolvedValueOnce('10.11.19-MariaDB')
      .mockRejectedValueOnce(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))
      .mockResolvedValueOnce('0-1-20');
    const positions = new PrimaryPositions({ primary: { readVariable } as unknown as DatabaseServer }, clock);
    await expect(positions.read()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await expect(positions.read()).resolves.toMatchObject({ text: '0-1-20' });
  });

  it('says so when the primary’s position is not one its kind writes', async () => {
    const readVariable = jest
      .fn<(sql: string) => Promise<string>>()
      // A MariaDB primary that answers something no MariaDB writes.
      .mockResolvedValueOnce('10.11.19-MariaDB')
      .mockResolvedValueOnce('garbage');
    const positions = new PrimaryPositions({ primary: { readVariable } as unknown as DatabaseServer }, clock);
    await expect(positions.read()).rejects.toBeInstanceOf(UnreadablePositionError);
  });
});
