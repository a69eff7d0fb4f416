import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createConnection, type Connection, type RowDataPacket } from 'mysql2/promise';
import { buildServiceImage, ensureNodeBaseImage, PODMAN_RUN_OPTIONS, run } from '../../launchers/container-images';
import { freePort, startThrowawayMysql, type ThrowawayMysql } from '../../launchers/mysql-server';
import { waitFor } from '../../launchers/wait-for';
import { signToken } from '../support/app/tokens';
import { TEST_AUDIENCE, TEST_ISSUER } from '../support/app/test-app';
import { bearer } from '../support/app/api-client';

const IMAGE = 'localhost/orders-service:test';
const MAX_IMAGE_BYTES = 350 * 1000 * 1000;
const JWT_SECRET = 'the-image-test-jwt-secret-0123456789';
const GRACE_MS = 10_000;

/**
 * The production image, built from the Dockerfile as `docker build .` builds it (podman here) and run as an
 * operator runs it: a non-root user, a read-only root filesystem, a 512 MiB limit, against a real MariaDB that
 * the same image migrates.
 */
describe('the container image', () => {
  let server: ThrowawayMysql;
  let observer: Connection;
  let port: number;
  const container = `orders-service-test-${process.pid}`;
  let environment: string[];

  const podman = (...args: string[]) => run('podman', args);

  beforeAll(async () => {
    await ensureNodeBaseImage();
    await buildServiceImage(IMAGE);
    server = await startThrowawayMysql();
    observer = await createConnection({ host: '127.0.0.1', port: server.port, user: 'root' });
    await observer.query('CREATE DATABASE orders_test');
    port = await freePort();
    environment = Object.entries({
      DB_TYPE: 'mysql',
      DB_HOST: '127.0.0.1',
      DB_PORT: String(server.port),
      DB_USERNAME: 'root',
      DB_DATABASE: 'orders_test',
      JWT_SECRET,
      JWT_ISSUER: TEST_ISSUER,
      JWT_AUDIENCE: TEST_AUDIENCE,
      PAGE_LINK_SECRET: 'the-image-test-page-link-secret-0123',
      ACCESS_RECORD_SEAL_KEY: randomBytes(32).toString('base64'),
      PORT: String(port),
      METRICS_PORT: String(await freePort()),
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
    }).flatMap(([name, value]) => ['--env', `${name}=${value}`]);
  }, 900_000);

  afterAll(async () => {
    await podman('rm', '--force', '--ignore', container).catch(() => undefined);
    await observer?.end();
    await server?.stop();
  }, 60_000);

  /** As an operator runs it: host network to reach the test's MariaDB, read-only root, 512 MiB. */
  const runArguments = () => [
    ...PODMAN_RUN_OPTIONS,
    '--network',
    'host',
    '--read-only',
    '--memory',
    '512m',
    ...environment,
  ];

  it('is at most 350 MB, and labelled with its source and package.json’s version', async () => {
    const [size, labels] = (await podman('image', 'inspect', IMAGE, '--format', '{{.Size}}\t{{json .Config.Labels}}'))
      .trim()
      .split('\t');
    expect(Number(size)).toBeLessThanOrEqual(MAX_IMAGE_BYTES);
    const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(JSON.parse(labels)).toMatchObject({
      'org.opencontainers.image.version': manifest.version,
      'org.opencontainers.image.source': expect.stringMatching(/^https:\/\//),
    });
  });

  it('runs as a non-root user, with production dependencies only', async () => {
    expect((await podman('image', 'inspect', IMAGE, '--format', '{{.Config.User}}')).trim()).toBe('node');
    const probe = await podman(
      'run',
      '--rm',
      ...PODMAN_RUN_OPTIONS,
      '--read-only',
      IMAGE,
      'sh',
      '-c',
      'id -u; for tool in typescript ts-node @swc/core @nestjs/cli jest sql.js; do test -e node_modules/$tool && echo $tool; done; true',
    );
    expect(probe.trim().split('\n')).toEqual(['1000']);
  });

  it('migrates a fresh database with the compiled migration command, from a read-only root', async () => {
    await podman('run', '--rm', ...runArguments(), IMAGE, 'node', 'dist/cli/migrate.js');
    const [tables] = await observer.query<RowDataPacket[]>('SHOW TABLES FROM orders_test');
    expect(tables.map((row) => String(Object.values(row)[0])).sort()).toEqual(
      expect.arrayContaining(['migrations', 'order_seats', 'orders']),
    );
  }, 120_000);

  it('serves under a 512 MiB limit: ready against MariaDB, and the listing answers with a token', async () => {
    await observer.query(
      `INSERT INTO orders_test.orders (user_id, concert_id, total_price, status, created_at, updated_at)
       VALUES (7, 3, 55000, 'PAYMENT_COMPLETED', NOW(3), NOW(3)), (7, 4, 120.5, 'PAYMENT_PENDING', NOW(3), NOW(3))`,
    );
    await podman('run', '--detach', '--name', container, ...runArguments(), IMAGE);
    const baseUrl = `http://127.0.0.1:${port}`;
    await waitFor(
      'the container to be ready',
      async () => (await fetch(`${baseUrl}/health/ready`).catch(() => undefined))?.status === 200,
      { timeoutMs: 60_000 },
    );
    const token = signToken({ sub: 7, role: 'USER' }, { secret: JWT_SECRET });
    const page = await fetch(`${baseUrl}/orders?sort=totalPrice,asc`, {
      headers: { ...bearer(token) },
    });
    expect(page.status).toBe(200);
    const body = (await page.json()) as { totalElementCount: number; elements: Array<{ totalPrice: number }> };
    expect(body.totalElementCount).toBe(2);
    expect(body.elements.map((element) => element.totalPrice)).toEqual([120.5, 55000]);
  }, 120_000);

  it('stops on SIGTERM with exit code 0 within the grace period', async () => {
    const started = Date.now();
    await podman('stop', '--time', String(GRACE_MS / 1000 + 5), container);
    const elapsed = Date.now() - started;
    expect((await podman('inspect', container, '--format', '{{.State.ExitCode}}')).trim()).toBe('0');
    expect(elapsed).toBeLessThan(GRACE_MS);
  }, 60_000);
});
