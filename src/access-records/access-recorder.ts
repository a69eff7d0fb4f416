import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Clock } from '../common/time/clock';
import { ACCESS_RECORDS_CONFIG } from '../config/config.module';
import type { AccessRecordsConfig } from '../config/access-records.config';
import { DatabaseServers } from '../database/database-servers';
import {
  endForm,
  recordForm,
  type AccessRecord,
  type AccessRecordFields,
  type ChainLink,
  type DownloadEnd,
  type DownloadEndFields,
} from './access-record';
import { AccessRecordMetrics, type RecordFailure } from './access-record-metrics';
import { timedOut, type AccessRecordStore } from './access-record-store';
import { RECORD_LANES, RecordLane, type Chain, type Waiting } from './record-lane';
import { SealKey, type UnsignedSeal } from './seal';

export const ACCESS_RECORD_STORE = Symbol('ACCESS_RECORD_STORE');

/** Records committed in one INSERT at most; more wait for the next. */
const MAX_BATCH = 200;
/** An export's end is not awaited by anyone: it may take this long. */
const END_TIMEOUT_MS = 10_000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** No record was committed, so no data is sent (docs/API.md §21). */
export class AccessRecordUnavailableError extends Error {
  constructor(readonly reason: RecordFailure) {
    super(`The access record could not be committed (${reason})`);
  }
}

/** docs/API.md §21: commits each admin request's record before its answer, in chains of this instance's own, each
 * with one INSERT in flight that takes every record waiting for it: no row every request waits on. */
@Injectable()
export class AccessRecorder implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('AccessRecords');
  private readonly sealKey: SealKey;
  private readonly lanes = Array.from({ length: RECORD_LANES }, () => new RecordLane());
  private sealTimer?: NodeJS.Timeout;
  private readonly downloads: { at: number; identifier: string; orders: number }[] = [];

  constructor(
    @Inject(ACCESS_RECORD_STORE) private readonly store: AccessRecordStore,
    @Inject(ACCESS_RECORDS_CONFIG) private readonly config: AccessRecordsConfig,
    private readonly metrics: AccessRecordMetrics,
    private readonly servers: DatabaseServers,
    private readonly clock: Clock,
  ) {
    this.sealKey = new SealKey(config.sealKey ?? randomBytes(32));
  }

  async onApplicationBootstrap(): Promise<void> {
    const reach = await this.store.accountReach();
    const mayChange = reach.update === true || reach.delete === true;
    this.metrics.accountMayChange.set(mayChange ? 1 : 0);
    if (mayChange) {
      this.logger.error(
        `The account access records are written with may ${reach.update ? 'UPDATE' : 'DELETE'} them: grant it INSERT alone (docs/DEPLOYING.md)`,
      );
    }
    this.sealTimer = setInterval(() => void this.seal(false), this.config.sealIntervalMs);
    this.sealTimer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.sealTimer);
    await this.seal(true);
    await this.store.close();
  }

  /** The record of a request, committed within `timeoutMs` or refused: the caller then sends no data. */
  record(record: AccessRecordFields, timeoutMs: number): Promise<ChainLink> {
    return this.enqueue({ record }, record.action, timeoutMs);
  }

  /** An export's closing figures; flagged when it, or its caller's last 24 hours of downloads, pass the review size. */
  end(opens: ChainLink, identifier: string, figures: Omit<DownloadEndFields, 'opensChain' | 'opensSeq' | 'flagged'>) {
    const now = this.clock.now();
    while (this.downloads.length > 0 && now - this.downloads[0].at > DAY_MS) this.downloads.shift();
    this.downloads.push({ at: now, identifier, orders: figures.orders });
    const day = this.downloads.reduce((sum, item) => sum + (item.identifier === identifier ? item.orders : 0), 0);
    const flagged = figures.orders > this.config.reviewOrders || day > this.config.reviewOrders;
    if (flagged) {
      this.metrics.flaggedDownloads.inc();
      this.logger.warn(
        `Download flagged for review: ${identifier} took ${figures.orders} orders (${day} in 24 hours, ACCESS_REVIEW_ORDERS=${this.config.reviewOrders}) [record ${opens.chain}#${opens.seq}]`,
      );
    }
    const end = { ...figures, opensChain: opens.chain, opensSeq: opens.seq, flagged };
    this.enqueue({ end }, 'download-end', END_TIMEOUT_MS).catch((error: unknown) =>
      this.logger.error(`An export's end went unrecorded: ${JSON.stringify(end)}`, String(error)),
    );
  }

  private enqueue(entry: Waiting['entry'], action: string, timeoutMs: number): Promise<ChainLink> {
    if (!this.takesWrites()) return Promise.reject(this.failed(action, 'no-writable-server'));
    return new Promise<ChainLink>((resolve, reject) => {
      const waiting: Waiting = { entry, action, deadline: Date.now() + timeoutMs, done: false, resolve, reject };
      const timer = setTimeout(() => {
        if (!waiting.done) this.settle(waiting, this.failed(action, 'timeout'));
      }, timeoutMs);
      waiting.resolve = (link) => {
        clearTimeout(timer);
        resolve(link);
      };
      // The least busy lane; the first of equals, so that records one at a time keep to one chain.
      const lane = this.lanes.reduce((best, candidate) => (candidate.load < best.load ? candidate : best));
      lane.queue.push(waiting);
      void this.flush(lane);
    });
  }

  private settle(waiting: Waiting, outcome: ChainLink | AccessRecordUnavailableError): void {
    if (waiting.done) return;
    waiting.done = true;
    if (outcome instanceof AccessRecordUnavailableError) waiting.reject(outcome);
    else waiting.resolve(outcome);
  }

  private failed(action: string, reason: RecordFailure): AccessRecordUnavailableError {
    this.metrics.failures.inc({ action, reason });
    return new AccessRecordUnavailableError(reason);
  }

  /** While no server takes writes, nothing can be recorded: refused at once rather than at the deadline. */
  private takesWrites(): boolean {
    const { primary, primaryIsCurrent } = this.servers;
    const { answering, role } = primary.health;
    return primaryIsCurrent && answering !== false && role?.writable !== false && role?.replicating !== true;
  }

  private async flush(lane: RecordLane): Promise<void> {
    if (lane.flushing) return;
    lane.flushing = true;
    try {
      while (lane.queue.length > 0) {
        // A request already answered 503 is not recorded as served.
        const batch = lane.queue.splice(0, MAX_BATCH).filter((waiting) => !waiting.done);
        if (batch.length > 0) await this.commit(lane, batch);
      }
    } finally {
      lane.flushing = false;
    }
  }

  private async commit(lane: RecordLane, batch: Waiting[]): Promise<void> {
    const records: AccessRecord[] = [];
    const ends: DownloadEnd[] = [];
    const links = batch.map(({ entry }) => {
      if ('record' in entry) {
        const link = lane.link(entry.record.at, (place) => recordForm({ ...entry.record, ...place }));
        records.push({ ...entry.record, ...link });
        return link;
      }
      const link = lane.link(entry.end.at, (place) => endForm({ ...entry.end, ...place }));
      ends.push({ ...entry.end, ...link });
      return link;
    });
    const timeoutMs = Math.min(...batch.map(({ deadline }) => deadline)) - Date.now();
    try {
      await this.store.insert(records, ends, Math.max(timeoutMs, 1));
    } catch (error) {
      // Whether the batch was committed is unknown: this chain ends at what is known, and another begins.
      this.logger.error(`Access records not committed (${batch.length}); a new chain begins`, String(error));
      lane.restart(false);
      const reason = timedOut(error) ? 'timeout' : 'database';
      for (const waiting of batch.filter(({ done }) => !done))
        this.settle(waiting, this.failed(waiting.action, reason));
      void this.sealRetired(lane);
      return;
    }
    for (const chain of new Set(links.map(({ chain }) => chain))) {
      const held = [...lane.retired.map((retired) => retired.chain), lane.chain].find(({ id }) => id === chain);
      if (held) held.committed = { seq: held.seq, hash: held.hash };
    }
    batch.forEach((waiting, index) => {
      this.metrics.records.inc({ action: waiting.action, outcome: outcomeOf(waiting.entry) });
      this.settle(waiting, links[index]);
    });
    void this.sealRetired(lane);
  }

  private async sealRetired(lane: RecordLane): Promise<void> {
    const retired = lane.retired;
    lane.retired = [];
    for (const { chain, final } of retired) await this.sealChain(chain, final);
  }

  /** docs/API.md §21: the head of this instance's chain, signed; at intervals, and finally when the instance stops. */
  async seal(final: boolean): Promise<void> {
    if (final) {
      await Promise.all(this.lanes.map((lane) => this.flush(lane)));
      for (const lane of this.lanes) await this.sealRetired(lane);
    }
    for (const { chain } of this.lanes) {
      if (chain.committed.seq > chain.sealedSeq || (final && chain.committed.seq > 0)) {
        await this.sealChain(chain, final);
      }
    }
  }

  private async sealChain(chain: Chain, final: boolean): Promise<void> {
    const { seq, hash } = chain.committed;
    if (seq === 0) return;
    const others = await this.others(chain.id);
    const unsigned: UnsignedSeal = { chain: chain.id, month: chain.month, seq, hash, at: new Date(), final, others };
    try {
      await this.store.insertSeal(this.sealKey.sign(unsigned), END_TIMEOUT_MS);
      chain.sealedSeq = seq;
      this.metrics.lastSeal.setToCurrentTime();
      this.logger.log(`Sealed chain ${chain.id} at ${seq} (${hash})${final ? ', its last' : ''}`);
    } catch (error) {
      this.logger.error(`Chain ${chain.id} could not be sealed at ${seq}; tried again at the next seal`, String(error));
    }
  }

  /** The other chains' latest seals of the last day (this instance's other lanes' too), read with the service's own
   * account. */
  private async others(own: string): Promise<Record<string, number>> {
    try {
      const since = new Date(Date.now() - DAY_MS).toISOString().replace('T', ' ').replace('Z', '');
      const rows: { chain: string; seq: number }[] = await this.servers.primary.dataSource.query(
        'SELECT chain, MAX(seq) AS seq FROM access_record_seals WHERE sealed_at >= ? GROUP BY chain',
        [since],
      );
      return Object.fromEntries(
        rows.filter(({ chain }) => chain !== own).map(({ chain, seq }) => [chain, Number(seq)]),
      );
    } catch {
      return {};
    }
  }
}

const outcomeOf = (entry: Waiting['entry']): string =>
  'record' in entry ? `${Math.floor(entry.record.status / 100)}xx` : entry.end.complete ? 'complete' : 'incomplete';
