import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { signDevelopmentToken } from '../src/auth/development-token';
import { Role } from '../src/auth/role';
import { toAuthConfig } from '../src/config/auth.config';
import { validateEnvironment } from '../src/config/environment';
import { generateOrders } from '../src/orders/seeding/order-generator';
import { writeOrders } from '../src/orders/seeding/order-writer';
import { startHaproxy, type Haproxy } from '../launchers/haproxy';
import { freePort } from '../launchers/mysql-server';
import { startThrowawayRedis, type ThrowawayRedis } from '../launchers/redis-server';
import { startReplicatedMysql, type ReplicatedMysql } from '../launchers/replication';
import { startServiceProcess, type ServiceProcess } from '../launchers/service-process';

/** Above HAProxy's `fall` × `inter` (2 × 500 ms in deploy/haproxy.cfg), as docs/DEPLOYING.md says to set it. */
const SHUTDOWN_DELAY_MS = '1500';
const DEMO_ORDERS = 20_000;

/**
 * `npm run stack`: a throw-away local topology to try docs/API.md §11 by hand —
 * a MariaDB primary and one replica in GTID replication, Redis, two instances
 * of the built service and HAProxy in front — on free ports, torn down on
 * Ctrl-C. Nothing of it outlives the command.
 */
async function main(): Promise<void> {
  let pair: ReplicatedMysql | undefined;
  let redis: ThrowawayRedis | undefined;
  const instances: ServiceProcess[] = [];
  let haproxy: Haproxy | undefined;
  let stopping = false;

  const tearDown = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    console.log('\nStopping the stack…');
    await haproxy?.stop();
    await Promise.all(
      instances.map(async (instance) => {
        if (instance.child.exitCode === null) instance.child.kill('SIGTERM');
        await instance.exited;
      }),
    );
    await redis?.kill();
    await pair?.stop();
    console.log('Stopped; nothing is left running.');
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void tearDown().finally(() => process.exit(0)));
  }

  try {
    console.log('Starting a MariaDB primary and a replica in GTID replication…');
    pair = await startReplicatedMysql();
    console.log(`Writing ${DEMO_ORDERS} demo orders on the primary…`);
    await writeOrders(
      pair.primaryDataSource,
      generateOrders({ orders: DEMO_ORDERS, members: 200, concerts: 40, days: 90, endMs: Date.now(), seed: 1 }),
    );
    await pair.waitInSync(60_000);
    redis = await startThrowawayRedis();

    const jwtSecret = randomBytes(32).toString('base64url');
    const environment = {
      ...pair.environment,
      REDIS_URL: redis.url,
      JWT_SECRET: jwtSecret,
      // One secret for both instances: a page link written by one is followed on the other.
      PAGE_LINK_SECRET: randomBytes(32).toString('base64url'),
      NODE_ENV: 'development',
      // HAProxy (deploy/haproxy.cfg) reaches the instances from the loopback address and names the client.
      TRUST_PROXY: '127.0.0.1',
      LOG_LEVEL: 'warn',
      SHUTDOWN_DELAY_MS,
    };
    for (let index = 0; index < 2; index += 1) {
      instances.push(
        await startServiceProcess({ ...environment, METRICS_PORT: String(await freePort()) }, { build: true }),
      );
    }
    for (const [index, instance] of instances.entries()) {
      // Their warnings (a replica skipped, Redis lost) show here as they happen.
      instance.child.stdout?.on('data', (chunk: Buffer) =>
        process.stdout.write(chunk.toString().replace(/^(?=.)/gm, `[instance ${index + 1}] `)),
      );
    }
    const hostOf = (url: string) => new URL(url).host;
    haproxy = await startHaproxy([hostOf(instances[0].baseUrl), hostOf(instances[1].baseUrl)]);

    const auth = toAuthConfig(validateEnvironment({ JWT_SECRET: jwtSecret }));
    const userToken = signDevelopmentToken(auth, { sub: 1, role: Role.User }, '12h');
    const adminToken = signDevelopmentToken(auth, { sub: 9000, role: Role.Admin }, '12h');
    console.log(`
The stack is up (Ctrl-C stops and removes all of it):
  load balancer (HAProxy)  ${haproxy.baseUrl}      Swagger UI: ${haproxy.baseUrl}/docs
  instance 1               ${instances[0].baseUrl}  PID ${instances[0].child.pid}
  instance 2               ${instances[1].baseUrl}  PID ${instances[1].child.pid}
  primary (MariaDB)        127.0.0.1:${pair.primary.port}  PID ${pair.primary.pid()}  root without password; database ${pair.environment.DB_DATABASE}
  replica (MariaDB)        127.0.0.1:${pair.replica.port}  PID ${pair.replica.pid()}  read-only
  Redis                    ${redis.url}

Tokens (12 h), for the shell:
  export USER_TOKEN=${userToken}
  export ADMIN_TOKEN=${adminToken}

Try:
  curl -s -H "Authorization: Bearer $USER_TOKEN" '${haproxy.baseUrl}/orders?size=3'
  curl -s -H "Authorization: Bearer $ADMIN_TOKEN" '${haproxy.baseUrl}/orders?orderStatus=REFUNDED'
  then kill -9 one of the PIDs above (an instance, the replica or the primary) and list again.
`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    await tearDown();
    process.exit(1);
  }
}

void main();
