import { Injectable } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { Metrics } from '../observability/metrics';

/** Why a record was not committed: in time, by the database, or with no server taking writes (docs/API.md §20). */
export type RecordFailure = 'timeout' | 'database' | 'no-writable-server';
const FAILURES: readonly RecordFailure[] = ['timeout', 'database', 'no-writable-server'];

/** docs/API.md §12 and §21: what the access records count, in the application's registry. */
@Injectable()
export class AccessRecordMetrics {
  readonly records: Counter<'action' | 'outcome'>;
  readonly failures: Counter<'action' | 'reason'>;
  readonly flaggedDownloads: Counter;
  readonly accountMayChange: Gauge;
  readonly lastSeal: Gauge;

  constructor({ registry }: Metrics) {
    const registers = [registry];
    this.records = new Counter({
      name: 'access_records_total',
      help: 'Access records committed, by action (view, download, download-end) and the answer’s status class.',
      labelNames: ['action', 'outcome'] as const,
      registers,
    });
    this.failures = new Counter({
      name: 'access_record_failures_total',
      help: 'Access records not committed, by action and reason (timeout, database, no-writable-server): the request was answered 503 with no data, or an export’s end went unrecorded.',
      labelNames: ['action', 'reason'] as const,
      registers,
    });
    this.flaggedDownloads = new Counter({
      name: 'access_record_flagged_downloads_total',
      help: 'Downloads flagged for review: they, or their caller’s downloads over 24 hours, passed ACCESS_REVIEW_ORDERS.',
      registers,
    });
    this.accountMayChange = new Gauge({
      name: 'access_record_account_may_change',
      help: '1 when the account records are written with may UPDATE or DELETE them (checked at start); it must not.',
      registers,
    });
    this.lastSeal = new Gauge({
      name: 'access_record_last_seal_timestamp_seconds',
      help: 'When this instance last sealed its chain of access records.',
      registers,
    });
    for (const action of ['view', 'download', 'download-end']) {
      for (const reason of FAILURES) this.failures.inc({ action, reason }, 0);
    }
    this.flaggedDownloads.inc(0);
  }
}
