import { describe, expect, it } from '@jest/globals';
import { primaryVerdict, replicationOf, roleFrom, type RoleReport } from './server-roles';

const primary: RoleReport = { name: 'primary', answering: true, serverId: 1, writable: true, replicating: false };
const replica = (name: string, follows: number, overrides: Partial<RoleReport> = {}): RoleReport => ({
  name,
  answering: true,
  serverId: Number(name.slice(-1)) + 1,
  writable: false,
  replicating: true,
  follows,
  ...overrides,
});

describe('primaryVerdict (docs/API.md §20)', () => {
  it('takes the configured primary as current while it is writable, replicates from nothing and is followed', () => {
    expect(primaryVerdict(primary, [replica('replica-1', 1), replica('replica-2', 1)])).toEqual({ current: true });
    // A replica whose threads stopped still names its source; a read-only one is no rival.
    expect(primaryVerdict(primary, [replica('replica-1', 1, { replicating: false })])).toEqual({ current: true });
    expect(primaryVerdict(primary, [])).toEqual({ current: true });
  });

  it('refuses a primary set read-only (read_only, or super_read_only on MySQL)', () => {
    expect(primaryVerdict({ ...primary, writable: false }, [])).toMatchObject({ current: false, why: /read-only/ });
  });

  it('refuses a primary that replicates from another server', () => {
    const demoted = { ...primary, replicating: true, follows: 2 };
    expect(primaryVerdict(demoted, [])).toMatchObject({ current: false, why: /replicating from server 2/ });
  });

  it('follows the server the replicas follow when the primary still takes writes beside it', () => {
    const verdict = primaryVerdict(primary, [
      replica('replica-1', 2, { writable: true, replicating: false, follows: undefined }),
      replica('replica-2', 2),
    ]);
    expect(verdict).toMatchObject({
      current: false,
      why: /replicas follow replica-1.*deposed/,
      successor: 'replica-1',
    });
  });

  it('refuses a primary the replicas no longer follow, for a server it does not know', () => {
    const verdict = primaryVerdict(primary, [replica('replica-1', 9), replica('replica-2', 9)]);
    expect(verdict).toMatchObject({ current: false, why: /replica-1 replicates from server 9.*deposed/ });
    expect(verdict).not.toHaveProperty('successor');
    // A chain is no deposition: replica-2 follows replica-1, which follows the primary.
    expect(primaryVerdict(primary, [replica('replica-1', 1), replica('replica-2', 2)])).toEqual({ current: true });
  });

  it('trusts neither of two writable servers that replicate from nothing, when no replica tells them apart', () => {
    const promoted = replica('replica-1', 1, { writable: true, replicating: false, follows: undefined });
    expect(primaryVerdict(primary, [promoted])).toMatchObject({ current: false, why: /two writable servers/ });
    expect(primaryVerdict(primary, [promoted])).not.toHaveProperty('successor');
    // The same server reached at two addresses is one server, not two.
    expect(primaryVerdict(primary, [{ ...promoted, serverId: 1 }])).toEqual({ current: true });
    // What a server that does not answer said last is no evidence.
    expect(primaryVerdict(primary, [{ ...promoted, answering: false }])).toEqual({ current: true });
  });

  it('keeps the primary the replicas follow when an old primary comes back writable beside it', () => {
    const returned = { name: 'replica-1', answering: true, serverId: 9, writable: true, replicating: false };
    expect(primaryVerdict(primary, [returned, replica('replica-2', 1)])).toEqual({ current: true });
  });

  it('keeps the promoted primary when the old one it replaced comes back writable, with no replica to tell them apart', () => {
    // This instance followed replica-1 (server 2) away from server 1, which now takes writes again beside it.
    const promoted = { ...primary, serverId: 2 };
    const returned = { name: 'primary', answering: true, serverId: 1, writable: true, replicating: false };
    expect(primaryVerdict(promoted, [returned], new Set([1]))).toEqual({ current: true });
    // Without that memory, as an instance started after the failover, the two cannot be told apart.
    expect(primaryVerdict(promoted, [returned])).toMatchObject({ current: false, why: /two writable servers/ });
    // Should the promoted one die, the old one alone is not followed: it may lack the writes taken meanwhile.
    const dead = { ...promoted, answering: false };
    expect(primaryVerdict(dead, [returned], new Set([1]))).toEqual({ current: true });
    // Unless a replica follows it again.
    expect(primaryVerdict(dead, [returned, replica('replica-2', 1)], new Set([1]))).toMatchObject({
      successor: 'primary',
    });
  });

  describe('a promotion, followed without configuration', () => {
    const promoted = replica('replica-1', 1, { writable: true, replicating: false, follows: undefined });
    const dead = { ...primary, answering: false };

    it('follows the one writable server once the primary stops answering, re-pointed replicas or not', () => {
      expect(primaryVerdict(dead, [promoted, replica('replica-2', 2)])).toMatchObject({ successor: 'replica-1' });
      // Not re-pointed yet: it still names the dead primary, which is no other candidate.
      expect(primaryVerdict(dead, [promoted, replica('replica-2', 1)])).toMatchObject({ successor: 'replica-1' });
    });

    it('follows a promotion after the primary was demoted (a switchover)', () => {
      const demoted = { ...primary, writable: false, replicating: true, follows: 2 };
      expect(primaryVerdict(demoted, [promoted, replica('replica-2', 2)])).toMatchObject({
        current: false,
        why: /replicating from server 2/,
        successor: 'replica-1',
      });
    });

    it('follows nothing while none or two servers take writes, or a replica follows a server it does not know', () => {
      expect(primaryVerdict(dead, [replica('replica-1', 1), replica('replica-2', 1)])).toEqual({ current: true });
      const other = { ...promoted, name: 'replica-2', serverId: 3 };
      expect(primaryVerdict(dead, [promoted, other])).toEqual({ current: true });
      const stray = replica('replica-2', 7);
      expect(primaryVerdict(dead, [promoted, stray])).toEqual({ current: true });
      expect(primaryVerdict({ ...primary, writable: false }, [replica('replica-1', 1)])).not.toHaveProperty(
        'successor',
        expect.any(String),
      );
    });
  });
});

describe('a server’s role from what it answers', () => {
  it('takes writes when read_only is off (MySQL’s super_read_only turns it on too), replicates with both threads', () => {
    expect(roleFrom({ readOnly: '0', serverId: '7' })).toEqual({
      serverId: 7,
      identity: '7',
      writable: true,
      replicating: false,
      follows: undefined,
    });
    expect(roleFrom({ readOnly: 1, serverId: 8 }, { replicating: true, follows: 7 })).toMatchObject({
      writable: false,
      replicating: true,
      follows: 7,
    });
  });

  it('names the physical server by MySQL’s server_uuid where it is read, else by its server_id', () => {
    const uuid = '3e11fa47-71ca-11e1-9e33-c80aa9429562';
    expect(roleFrom({ readOnly: 0, serverId: 1, serverUuid: uuid }).identity).toBe(uuid);
    expect(roleFrom({ readOnly: 0, serverId: 34607 }).identity).toBe('34607');
  });

  it('reads MariaDB’s and MySQL’s names for the replication threads and the source', () => {
    expect(replicationOf({ Slave_IO_Running: 'Yes', Slave_SQL_Running: 'Yes', Master_Server_Id: '1' })).toEqual({
      io: 'Yes',
      sql: 'Yes',
      replicating: true,
      follows: 1,
    });
    expect(
      replicationOf({ Replica_IO_Running: 'Connecting', Replica_SQL_Running: 'Yes', Source_Server_Id: 3 }),
    ).toEqual({ io: 'Connecting', sql: 'Yes', replicating: false, follows: 3 });
    // RESET SLAVE ALL leaves no status row; a row naming server 0 follows none.
    expect(replicationOf(undefined)).toEqual({ replicating: false });
    expect(
      replicationOf({ Slave_IO_Running: 'No', Slave_SQL_Running: 'No', Master_Server_Id: 0 }).follows,
    ).toBeUndefined();
  });
});
