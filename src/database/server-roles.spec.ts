import { describe, expect, it } from '@jest/globals';
import { primaryVerdict, type RoleReport } from './server-roles';

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

  it('refuses a primary the replicas no longer follow: another was promoted', () => {
    const verdict = primaryVerdict(primary, [
      replica('replica-1', 2, { writable: true, replicating: false, follows: undefined }),
      replica('replica-2', 2),
    ]);
    expect(verdict).toMatchObject({ current: false, why: /replica-2 replicates from server 2.*deposed/ });
  });

  it('trusts neither of two writable servers that replicate from nothing', () => {
    const promoted = replica('replica-1', 1, { writable: true, replicating: false, follows: undefined });
    expect(primaryVerdict(primary, [promoted])).toMatchObject({ current: false, why: /two writable servers/ });
    // The same server reached at two addresses is one server, not two.
    expect(primaryVerdict(primary, [{ ...promoted, serverId: 1 }])).toEqual({ current: true });
    // What a server that does not answer said last is no evidence.
    expect(primaryVerdict(primary, [{ ...promoted, answering: false }])).toEqual({ current: true });
  });
});
