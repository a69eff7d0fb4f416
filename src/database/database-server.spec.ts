import { describe, expect, it, jest } from '@jest/globals';
import { DataSource } from 'typeorm';
import type { Clock } from '../common/time/clock';
import { toDatabaseConfig } from '../config/database.config';
import { validateEnvironment } from '../config/environment';
import { buildDataSourceOptions } from './data-source-options';
import { DatabaseServer } from './database-server';

const clock: Clock = { now: () => 1_000 };
const config = toDatabaseConfig(validateEnvironment({ DB_TYPE: 'mysql' }));
const answering = (serverId: number) => ({
  answering: true,
  replicating: false,
  role: { serverId, writable: true, replicating: false },
});

describe('DatabaseServer: the server behind its address (docs/API.md §20)', () => {
  it('replaces its connections when another server answers at its address, once', () => {
    const server = new DatabaseServer('primary', new DataSource(buildDataSourceOptions(config)), config, clock);
    // A pool that is never opened here: what matters is that it is told to retire what it holds.
    const retire = jest.spyOn(server.admission, 'retireConnections').mockImplementation(() => undefined);
    server.recordCheck(answering(1), 0);
    server.recordCheck(answering(1), 0);
    expect(retire).not.toHaveBeenCalled();
    // A moving address moved: server 2 answers where server 1 did.
    server.recordCheck(answering(2), 0);
    expect(retire).toHaveBeenCalledTimes(1);
    expect(server.knownServerId).toBe(2);
    server.recordCheck(answering(2), 0);
    expect(retire).toHaveBeenCalledTimes(1);
  });

  it('keeps the last id it heard while the server does not answer, so that its return is no change', () => {
    const server = new DatabaseServer('replica-1', new DataSource(buildDataSourceOptions(config)), config, clock);
    const retire = jest.spyOn(server.admission, 'retireConnections').mockImplementation(() => undefined);
    server.recordCheck(answering(3), 0);
    server.recordCheck({ answering: false, replicating: false, problem: 'ECONNREFUSED' }, 0);
    expect(server.knownServerId).toBe(3);
    server.recordCheck(answering(3), 0);
    expect(retire).not.toHaveBeenCalled();
  });
});
