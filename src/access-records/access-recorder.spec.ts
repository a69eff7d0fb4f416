import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { Registry } from 'prom-client';
import { Clock } from '../common/time/clock';
import type { AccessRecordsConfig } from '../config/access-records.config';
import { ACCESS_RECORDS_CONFIG } from '../config/config.module';
import { DatabaseServers } from '../database/database-servers';
import type { Metrics } from '../observability/metrics';
import { CHAIN_START, type AccessRecord, type AccessRecordFields, type DownloadEnd } from './access-record';
import { AccessRecordMetrics } from './access-record-metrics';
import type { AccessRecordStore } from './access-record-store';
import { ACCESS_RECORD_STORE, AccessRecorder, AccessRecordUnavailableError } from './access-recorder';
import { RECORD_LANES } from './record-lane';
import type { Seal } from './seal';

const REVIEW_ORDERS = 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

class ManualClock extends Clock {
  at = 0;
  now(): number {
    return this.at;
  }
}

/** A store whose INSERTs wait until the test settles them, one after another, as a primary answers them. */
class HeldStore implements AccessRecordStore {
  readonly batches: { records: readonly AccessRecord[]; ends: readonly DownloadEnd[] }[] = [];
  readonly seals: Seal[] = [];
  private readonly pending: { resolve(): void; reject(error: Error): void }[] = [];

  insert(records: readonly AccessRecord[], ends: readonly DownloadEnd[]): Promise<void> {
    this.batches.push({ records, ends });
    return new Promise((resolve, reject) => this.pending.push({ resolve, reject }));
  }

  get inFlight(): number {
    return this.pending.length;
  }

  async settle(outcome: 'commit' | Error): Promise<void> {
    const next = this.pending.shift();
    if (!next) throw new Error('No INSERT is in flight');
    if (outcome === 'commit') next.resolve();
    else next.reject(outcome);
    // The recorder goes on to its next batch once the settled one's callbacks have run.
    await new Promise((resolve) => setImmediate(resolve));
  }

  insertSeal(seal: Seal): Promise<void> {
    this.seals.push(seal);
    return Promise.resolve();
  }

  accountReach() {
    return Promise.resolve({ update: false, delete: false });
  }

  close() {
    return Promise.resolve();
  }
}

const CONFIG: AccessRecordsConfig = {
  sealKey: Buffer.alloc(32, 5),
  publicKeys: [],
  account: { username: 'orders_records', password: '' },
  retentionMonths: 24,
  sealIntervalMs: 60_000,
  reviewOrders: REVIEW_ORDERS,
  businessHours: { lastWeekday: 5, fromMinute: 540, untilMinute: 1080 },
  timeZone: 'Asia/Seoul',
};

const recordOf = (requestId: string): AccessRecordFields => ({
  at: new Date(),
  identifier: '9000',
  role: 'ADMIN',
  address: '10.0.0.7',
  requestId,
  action: 'view',
  parameters: { page: 1, size: 20 },
  status: 200,
  problem: null,
  orders: 20,
  members: [4, 8],
  reason: null,
  fields: null,
  position: null,
});

/** docs/API.md §21: records committed together while an INSERT is in flight, chained, refused when not committed. */
describe('AccessRecorder', () => {
  let recorder: AccessRecorder;
  let store: HeldStore;
  let clock: ManualClock;
  let registry: Registry;
  // The primary as the last health round found it: writable unless a test says it was set read-only.
  const servers = { primary: { health: { answering: true, role: { writable: true } } }, primaryIsCurrent: true };

  beforeEach(async () => {
    store = new HeldStore();
    clock = new ManualClock();
    registry = new Registry();
    servers.primary.health.role.writable = true;
    const moduleRef = await Test.createTestingModule({
      providers: [
        AccessRecorder,
        { provide: ACCESS_RECORD_STORE, useValue: store },
        { provide: ACCESS_RECORDS_CONFIG, useValue: CONFIG },
        { provide: DatabaseServers, useValue: servers },
        { provide: Clock, useValue: clock },
        // Its own registry, so that each test reads only its own counts.
        { provide: AccessRecordMetrics, useFactory: () => new AccessRecordMetrics({ registry } as Metrics) },
      ],
    }).compile();
    recorder = moduleRef.get(AccessRecorder);
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  const count = async (name: string) =>
    ((await registry.getSingleMetric(name)?.get())?.values ?? []).reduce((sum, { value }) => sum + value, 0);

  it('commits the records that arrive while every lane has an INSERT in flight in their lane’s next INSERT', async () => {
    // One record per lane, each INSERT in flight; then two more per lane, which wait.
    const names = Array.from({ length: RECORD_LANES * 3 }, (_, index) => `r${index}`);
    const links = names.map((name) => recorder.record(recordOf(name), 2000));
    while (store.inFlight > 0) await store.settle('commit');
    const linked = await Promise.all(links);
    const inserted = store.batches.map(({ records }) => records.map(({ requestId }) => requestId));
    expect(inserted).toHaveLength(RECORD_LANES * 2);
    // The first lane's: its first record alone, then the two that waited for it, in one INSERT.
    expect(inserted).toContainEqual(['r0']);
    expect(inserted).toContainEqual([`r${RECORD_LANES}`, `r${RECORD_LANES * 2}`]);
    const lane = [linked[0], linked[RECORD_LANES], linked[RECORD_LANES * 2]];
    expect(lane.map(({ seq }) => seq)).toEqual([1, 2, 3]);
    expect(new Set(lane.map(({ chain }) => chain)).size).toBe(1);
    expect([lane[0].prevHash, lane[1].prevHash, lane[2].prevHash]).toEqual([CHAIN_START, lane[0].hash, lane[1].hash]);
    expect(new Set(linked.map(({ chain }) => chain)).size).toBe(RECORD_LANES);
    expect(await count('access_records_total')).toBe(names.length);
  });

  it('refuses the records of a failed INSERT, seals the chain at its last commit and begins another', async () => {
    const committed = recorder.record(recordOf('a'), 2000);
    await store.settle('commit');
    const { chain } = await committed;
    const failed = recorder.record(recordOf('b'), 2000);
    const refusal = expect(failed).rejects.toEqual(new AccessRecordUnavailableError('database'));
    await store.settle(new Error('Table access_records does not exist'));
    await refusal;
    expect(store.seals).toEqual([expect.objectContaining({ chain, seq: 1, final: false })]);
    const next = recorder.record(recordOf('c'), 2000);
    await store.settle('commit');
    await expect(next).resolves.toMatchObject({ seq: 1, prevHash: CHAIN_START });
    expect((await next).chain).not.toBe(chain);
    expect(await count('access_record_failures_total')).toBe(1);
  });

  it('refuses at once while no server takes writes, without trying', async () => {
    servers.primary.health.role.writable = false;
    await expect(recorder.record(recordOf('a'), 2000)).rejects.toEqual(
      new AccessRecordUnavailableError('no-writable-server'),
    );
    expect(store.batches).toEqual([]);
  });

  it('refuses a record not committed by its deadline, and never commits it later as served', async () => {
    jest.useFakeTimers();
    const inFlight = Array.from({ length: RECORD_LANES }, (_, index) => recorder.record(recordOf(`f${index}`), 2000));
    const queued = recorder.record(recordOf('queued'), 2000);
    const refusals = Promise.allSettled([...inFlight, queued]);
    jest.advanceTimersByTime(2001);
    const outcomes = await refusals;
    expect(
      outcomes.map((outcome) => (outcome.status === 'rejected' ? (outcome.reason as unknown) : outcome.value)),
    ).toEqual(outcomes.map(() => new AccessRecordUnavailableError('timeout')));
    jest.useRealTimers();
    while (store.inFlight > 0) await store.settle(new Error('Lock wait timeout exceeded'));
    // The record refused while it waited for its turn is not sent afterwards.
    expect(store.batches.flatMap(({ records }) => records.map(({ requestId }) => requestId))).not.toContain('queued');
    expect(store.batches).toHaveLength(RECORD_LANES);
    expect(await count('access_record_failures_total')).toBe(RECORD_LANES + 1);
  });

  it('flags a download past the review size, alone or with its caller’s downloads of the last 24 hours', async () => {
    const opened = recorder.record({ ...recordOf('a'), action: 'download' }, 2000);
    await store.settle('commit');
    const link = await opened;
    const figures = (orders: number) => ({ at: new Date(), orders, bytes: orders * 100, complete: true });
    recorder.end(link, '9000', figures(REVIEW_ORDERS + 1));
    await store.settle('commit');
    clock.at += DAY_MS + 1;
    recorder.end(link, '9000', figures(600));
    await store.settle('commit');
    recorder.end(link, '9000', figures(600));
    await store.settle('commit');
    // Another identifier's downloads are its own.
    recorder.end(link, '7000', figures(600));
    await store.settle('commit');
    expect(store.batches.slice(1).map(({ ends }) => ends[0].flagged)).toEqual([true, false, true, false]);
    expect(await count('access_record_flagged_downloads_total')).toBe(2);
  });

  it('seals its chain when it stops, as its last', async () => {
    const committed = recorder.record(recordOf('a'), 2000);
    await store.settle('commit');
    const { chain, hash } = await committed;
    await recorder.beforeApplicationShutdown();
    expect(store.seals).toEqual([expect.objectContaining({ chain, seq: 1, hash, final: true })]);
  });
});
