import { describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { toDatabaseConfig } from '../config/database.config';
import { validateEnvironment } from '../config/environment';
import { buildDataSourceOptions } from './data-source-options';
import { DatabaseServers } from './database-servers';

/** A primary (server 1) and a replica (server 2) as the checks found them; nothing is connected to. */
function servers(): DatabaseServers {
  const config = toDatabaseConfig(validateEnvironment({ DB_TYPE: 'mysql', DB_REPLICAS: '127.0.0.1:1' }));
  const found = new DatabaseServers(new DataSource(buildDataSourceOptions(config)), config, { now: () => 0 });
  [found.primary.knownServerId, found.replicas[0].knownServerId] = [1, 2];
  return found;
}

describe('DatabaseServers follows a promotion (docs/API.md §20)', () => {
  // The role change's warning is part of the contract (docs/OPERATIONS.md); here it would only clutter the output.
  jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);

  it('follows the successor a verdict names, and remembers the primary it left by server id', () => {
    const all = servers();
    all.recordVerdict({ current: false, why: 'not answering', successor: 'replica-1' });
    expect(all.primary.name).toBe('replica-1');
    expect(all.replicas.map((server) => server.name)).toEqual(['primary']);
    expect([...all.deposedIds]).toEqual([1]);
    expect(all.roleChanges).toBe(1);
  });

  it('forgets that a server was left once it is followed again (a failback)', () => {
    const all = servers();
    all.recordVerdict({ current: false, why: 'not answering', successor: 'replica-1' });
    all.recordVerdict({ current: false, why: 'read-only: demoted, not the primary', successor: 'primary' });
    expect(all.primary.name).toBe('primary');
    expect([...all.deposedIds]).toEqual([2]);
  });

  it('counts another server answering at a configured address as a change of role, once', () => {
    const all = servers();
    // No check has answered at the address yet.
    all.primary.knownServerId = undefined;
    const answers = (serverId: number) =>
      all.primary.recordCheck(
        { answering: true, replicating: false, role: { serverId, identity: String(serverId), writable: true } },
        0,
      );
    answers(34606);
    answers(34606);
    expect(all.roleChanges).toBe(0);
    // The address moved to the promoted server: its connections are replaced, and the change is told.
    answers(34607);
    expect(all.roleChanges).toBe(1);
    expect(all.primary.knownIdentity).toBe('34607');
  });
});
