import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection, type RowDataPacket } from 'mysql2/promise';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { toDatabaseConfig } from '../../src/config/database.config';
import { InvalidConfigurationError, validateEnvironment } from '../../src/config/environment';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { DatabaseServers } from '../../src/database/database-servers';
import { ORDER_ENTITIES } from '../../src/orders/order-entities';
import { startThrowawayMysql, type ThrowawayMysql } from '../../launchers/mysql-server';
import { startTestApp, type TestApp } from '../support/app/test-app';
import { mysqlEnvironment, type MysqlTarget } from '../support/app/test-database';
import { adminToken } from '../support/app/tokens';
import { seedDataset } from '../support/data/dataset';
import { api } from '../support/app/api-client';

/** A certificate authority of the test's own, and server certificates it signs for the names given. */
class TestCertificates {
  readonly directory = mkdtempSync(join(tmpdir(), 'orders-test-tls-'));

  constructor() {
    this.authority('ca');
    this.authority('other-ca');
  }

  path(name: string): string {
    return join(this.directory, name);
  }

  /** A server key and a certificate naming `dnsName`, signed by the test CA; returns [cert, key] paths. */
  server(name: string, dnsName: string): [string, string] {
    const [key, request, cert, extensions] = ['key', 'csr', 'pem', 'ext'].map((kind) => this.path(`${name}.${kind}`));
    writeFileSync(extensions, `subjectAltName=DNS:${dnsName}\n`);
    this.openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', request, '-subj', `/CN=${dnsName}`]);
    this.openssl([
      'x509',
      '-req',
      '-in',
      request,
      '-CA',
      this.path('ca.pem'),
      '-CAkey',
      this.path('ca.key'),
      '-CAcreateserial',
      '-out',
      cert,
      '-days',
      '2',
      '-extfile',
      extensions,
    ]);
    return [cert, key];
  }

  remove(): void {
    rmSync(this.directory, { recursive: true, force: true });
  }

  private authority(name: string): void {
    this.openssl([
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      this.path(`${name}.key`),
      '-out',
      this.path(`${name}.pem`),
      '-days',
      '2',
      '-subj',
      `/CN=${name}`,
    ]);
  }

  private openssl(args: string[]): void {
    execFileSync('openssl', args, { stdio: 'ignore' });
  }
}

/**
 * DB_SSL against a real MariaDB that refuses plain connections (require_secure_transport=ON), with certificates
 * from a CA the test makes: how a managed MySQL service is reached (docs/API.md, "Configuration").
 */
describe('TLS to the database', () => {
  let certificates: TestCertificates;
  let server: ThrowawayMysql;
  let target: MysqlTarget;
  let context: TestApp | undefined;
  /** Where the server reads its certificate; replaced, and reloaded with FLUSH SSL, to change the name it carries. */
  let served: { cert: string; key: string };

  const rootTls = () => ({ ca: readFileSync(certificates.path('ca.pem'), 'utf8'), rejectUnauthorized: true });

  beforeAll(async () => {
    certificates = new TestCertificates();
    const [cert, key] = certificates.server('wrong-name', 'db.orders.test');
    served = { cert: certificates.path('served.pem'), key: certificates.path('served.key') };
    copyFileSync(cert, served.cert);
    copyFileSync(key, served.key);
    server = await startThrowawayMysql(undefined, {}, { ca: certificates.path('ca.pem'), ...served });
    target = { host: '127.0.0.1', port: server.port, user: 'root', password: '', database: 'orders_test_tls' };
    const root = await createConnection({ host: '127.0.0.1', port: server.port, user: 'root', ssl: rootTls() });
    await root.query('CREATE DATABASE orders_test_tls CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci');
    await root.end();
    const maintenance = new DataSource({
      ...buildDataSourceOptions(
        toDatabaseConfig(
          validateEnvironment({
            ...mysqlEnvironment(target),
            DB_SSL: 'verify-ca',
            DB_SSL_CA: certificates.path('ca.pem'),
          }),
        ),
        'maintenance',
      ),
      entities: ORDER_ENTITIES,
    });
    await maintenance.initialize();
    try {
      await maintenance.runMigrations();
      await seedDataset(maintenance, 7);
    } finally {
      await maintenance.destroy();
    }
  }, 120_000);

  afterEach(async () => {
    await context?.close();
    context = undefined;
  });

  afterAll(async () => {
    await server?.stop();
    certificates?.remove();
  });

  /** Starts the service on the TLS server; rejects with the start-up problems when it cannot. */
  const start = async (environment: Record<string, string>): Promise<TestApp> =>
    (context = await startTestApp({ ...mysqlEnvironment(target), ...environment }));

  const startFailure = async (environment: Record<string, string>): Promise<string[]> => {
    try {
      await start(environment);
    } catch (error) {
      if (error instanceof InvalidConfigurationError) return error.problems;
      throw error;
    }
    throw new Error('The service started, where it should have refused to');
  };

  it('with DB_SSL=off, refuses to start and names DB_SSL', async () => {
    await expect(startFailure({ DB_SSL: 'off' })).resolves.toEqual([
      expect.stringMatching(/^DB_SSL: the database server at 127\.0\.0\.1:\d+ requires TLS/),
    ]);
  }, 60_000);

  it('with verify-ca and the CA, serves over an encrypted connection, to the primary and to a replica', async () => {
    const app = await start({
      DB_SSL: 'verify-ca',
      DB_SSL_CA: certificates.path('ca.pem'),
      // The same server stands in for a replica: its health check and pool must reach it over TLS too.
      DB_REPLICAS: `127.0.0.1:${server.port}`,
    });
    const [cipher] = await app.dataSource.query<RowDataPacket[]>("SHOW SESSION STATUS LIKE 'Ssl_cipher'");
    expect(cipher.Value).not.toBe('');
    expect((await request(app.server).get('/health/ready')).status).toBe(200);
    const page = await api(app.server, adminToken()).get('/orders?size=5');
    expect(page.status).toBe(200);
    const [{ total }] = await app.dataSource.query<RowDataPacket[]>('SELECT COUNT(*) AS total FROM orders');
    expect((page.body as { totalElementCount: number }).totalElementCount).toBe(Number(total));
    // Answering, though not replicating (it is no replica): the check reached it, which a plain connection cannot.
    const [replica] = app.app.get(DatabaseServers).replicas;
    expect(replica.health).toMatchObject({ answering: true, replicating: false });
  }, 60_000);

  it('with verify-ca and a CA that did not sign the certificate, refuses to start and names DB_SSL', async () => {
    await expect(startFailure({ DB_SSL: 'verify-ca', DB_SSL_CA: certificates.path('other-ca.pem') })).resolves.toEqual([
      expect.stringMatching(/^DB_SSL: the certificate of the database server .* failed verification/),
    ]);
  }, 60_000);

  it('with verify-identity, refuses a certificate for another host name, and accepts one for this one', async () => {
    const verified = { DB_HOST: 'localhost', DB_SSL: 'verify-identity', DB_SSL_CA: certificates.path('ca.pem') };
    await expect(startFailure(verified)).resolves.toEqual([
      expect.stringMatching(/^DB_SSL: the certificate .* failed verification .*db\.orders\.test/),
    ]);

    const [cert, key] = certificates.server('right-name', 'localhost');
    copyFileSync(cert, served.cert);
    copyFileSync(key, served.key);
    const root = await createConnection({ host: '127.0.0.1', port: server.port, user: 'root', ssl: rootTls() });
    await root.query('FLUSH SSL');
    await root.end();

    const app = await start(verified);
    expect((await request(app.server).get('/health/ready')).status).toBe(200);
  }, 60_000);
});
