import { DataSource } from 'typeorm';
import { signDevelopmentToken } from '../../src/auth/development-token';
import { Role } from '../../src/auth/role';
import { toAuthConfig } from '../../src/config/auth.config';
import { toDatabaseConfig } from '../../src/config/database.config';
import type { EnvironmentVariables } from '../../src/config/environment-variables';
import { buildDataSourceOptions } from '../../src/database/data-source-options';

interface Scenario {
  name: string;
  token: string;
  query: string;
}

/** What every mode shares: the run's options, the environment it measures, tokens, scenarios, a monitor connection. */
export interface BenchContext {
  seconds: number;
  rounds: number;
  /** autocannon connections per window. */
  connections: number;
  env: EnvironmentVariables;
  adminToken: string;
  userToken: string;
  scenarios: Scenario[];
  /** A connection of the bench's own to the configured database, opened on first use. */
  monitor(): Promise<DataSource>;
  close(): Promise<void>;
}

export function createContext(
  env: EnvironmentVariables,
  options: { seconds: number; rounds: number; connections: number },
): BenchContext {
  const auth = toAuthConfig(env);
  const adminToken = signDevelopmentToken(auth, { sub: 1, role: Role.Admin }, '2h');
  const userToken = signDevelopmentToken(auth, { sub: 1, role: Role.User }, '2h');
  let monitor: Promise<DataSource> | undefined;
  return {
    ...options,
    env,
    adminToken,
    userToken,
    scenarios: scenariosFor(userToken, adminToken),
    monitor: () =>
      (monitor ??= new DataSource(buildDataSourceOptions(toDatabaseConfig(env), 'maintenance')).initialize()),
    close: async () => {
      if (monitor) await (await monitor).destroy();
    },
  };
}

/** The requests every comparison is made of; modes pick theirs by name. */
function scenariosFor(userToken: string, adminToken: string): Scenario[] {
  return [
    { name: 'user page 1', token: userToken, query: '' },
    { name: 'user deep page (200)', token: userToken, query: 'page=200' },
    { name: 'admin page 1', token: adminToken, query: '' },
    { name: 'admin offset 500,000', token: adminToken, query: 'page=25001' },
    { name: 'admin userId', token: adminToken, query: 'userId=1' },
    { name: 'admin consertId', token: adminToken, query: 'consertId=7' },
    { name: 'admin orderStatus', token: adminToken, query: 'orderStatus=REFUNDED' },
    { name: 'admin one month', token: adminToken, query: 'startDate=2026-03-01&endDate=2026-03-31' },
    {
      name: 'admin all filters',
      token: adminToken,
      query: 'userId=1&consertId=7&orderStatus=PAYMENT_COMPLETED&startDate=2025-01-01&endDate=2026-10-31',
    },
    { name: 'admin size 100', token: adminToken, query: 'size=100' },
  ];
}
