import 'dotenv/config';
import 'reflect-metadata';
import type { KeyObject } from 'node:crypto';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { DateTime } from 'luxon';
import { DataSource } from 'typeorm';
import { AccessRecordReader, type ListedRecord } from '../access-records/access-record-reader';
import { REVIEW_COLUMNS, reviewOf, type ReviewLine } from '../access-records/access-review';
import { ChainVerifier } from '../access-records/chain-verification';
import { PartitionMaintenance } from '../access-records/partition-maintenance';
import { SealKey, keyIdOf, publicKeyOf } from '../access-records/seal';
import { toAccessRecordsConfig, type AccessRecordsConfig } from '../config/access-records.config';
import { toDatabaseConfig } from '../config/database.config';
import { validateEnvironment } from '../config/environment';
import { buildDataSourceOptions } from '../database/data-source-options';
import { textCell } from '../orders/export/export-columns';
import { XlsxEncoder } from '../orders/export/xlsx-encoder';

const USAGE = `Usage (docs/OPERATIONS.md, access records):
  npm run access-records -- verify
  npm run access-records -- list --since <ISO time> [--until <ISO time>] [--identifier <id>] [--format ndjson|csv]
  npm run access-records -- report --month YYYY-MM [--format csv|xlsx]
  npm run access-records -- purge
  npm run access-records -- public-key`;

/** `list`'s fields, in order: each NDJSON line's keys and the CSV's columns. */
const LIST_FIELDS = [
  'id',
  'at',
  'identifier',
  'role',
  'address',
  'requestId',
  'action',
  'parameters',
  'status',
  'problem',
  'orders',
  'members',
  'bytes',
  'complete',
  'position',
  'reason',
  'fields',
  'flagged',
] as const;

class UsageError extends Error {}

function listed(record: ListedRecord): Record<(typeof LIST_FIELDS)[number], unknown> {
  return { ...record, at: record.at.toISOString() };
}

const csvValue = (value: unknown): string =>
  value === null || value === undefined
    ? ''
    : typeof value === 'string'
      ? textCell(value)
      : typeof value === 'number' || typeof value === 'boolean'
        ? String(value)
        : textCell(JSON.stringify(value));

function writeCsv<Key extends string>(columns: readonly Key[], rows: Iterable<Record<Key, unknown>>): void {
  process.stdout.write(`${columns.join(',')}\r\n`);
  for (const row of rows) process.stdout.write(`${columns.map((column) => csvValue(row[column])).join(',')}\r\n`);
}

function publicKeysOf(config: AccessRecordsConfig): Map<string, KeyObject> {
  const raws = [...config.publicKeys, ...(config.sealKey ? [new SealKey(config.sealKey).publicKey] : [])];
  return new Map(raws.map((raw) => [keyIdOf(raw), publicKeyOf(raw)]));
}

const instantOf = (text: string | undefined, name: string): Date => {
  const at = text === undefined ? undefined : new Date(text);
  if (!at || Number.isNaN(at.getTime())) throw new UsageError(`--${name} must be an ISO 8601 time`);
  return at;
};

async function verify(dataSource: DataSource, config: AccessRecordsConfig): Promise<number> {
  const reader = new AccessRecordReader(dataSource);
  const keys = publicKeysOf(config);
  if (keys.size === 0) throw new UsageError('Give the seal keys: ACCESS_RECORD_SEAL_PUBLIC_KEYS (or the seal key)');
  const oldest = await new PartitionMaintenance(dataSource).oldestKeptMonth(new Date(), config.retentionMonths);
  const verifier = new ChainVerifier(await reader.seals(), keys, oldest);
  for (const month of await reader.months()) verifier.add(await reader.entries(month));
  const { problems, unsealed, chains, entries, seals } = verifier.finish();
  const summary = `${entries} entries in ${chains} chains, ${seals} seals, months from ${oldest} kept`;
  for (const chain of unsealed) console.log(`chain ${chain}: its last entries are not sealed yet`);
  if (problems.length === 0) {
    console.log(`Intact: ${summary}`);
    return 0;
  }
  for (const problem of problems) console.log(`TAMPERED: ${problem}`);
  console.log(`${problems.length} problems: ${summary}`);
  return 1;
}

async function list(dataSource: DataSource, values: Record<string, string | undefined>): Promise<void> {
  const since = instantOf(values.since, 'since');
  const until = values.until === undefined ? new Date() : instantOf(values.until, 'until');
  const records = await new AccessRecordReader(dataSource).list(since, until, values.identifier);
  if (values.format === 'csv') return writeCsv(LIST_FIELDS, records.map(listed));
  for (const record of records) {
    const line = listed(record);
    process.stdout.write(`${JSON.stringify(Object.fromEntries(LIST_FIELDS.map((key) => [key, line[key]])))}\n`);
  }
}

async function report(dataSource: DataSource, config: AccessRecordsConfig, month?: string, format = 'csv') {
  if (!month || !/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) throw new UsageError('--month must be YYYY-MM');
  const start = DateTime.fromISO(`${month}-01`, { zone: config.timeZone });
  const records = await new AccessRecordReader(dataSource).list(start.toJSDate(), start.plus({ months: 1 }).toJSDate());
  const lines = reviewOf(records, config.businessHours, config.timeZone);
  if (format !== 'xlsx') return writeCsv<keyof ReviewLine>(REVIEW_COLUMNS, lines);
  const textual = new Set<string>(['identifier', 'reasons', 'repeatedLookups']);
  const encoder = new XlsxEncoder(
    REVIEW_COLUMNS.map((name) => ({ name, kind: textual.has(name) ? 'text' : 'integer' })),
  );
  for await (const chunk of encoder.encode(Readable.from([lines]))) {
    process.stdout.write(chunk);
  }
}

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      since: { type: 'string' },
      until: { type: 'string' },
      identifier: { type: 'string' },
      month: { type: 'string' },
      format: { type: 'string' },
    },
  });
  const env = validateEnvironment(process.env);
  const config = toAccessRecordsConfig(env);
  const [command] = positionals;
  const formats: Record<string, string[]> = { list: ['ndjson', 'csv'], report: ['csv', 'xlsx'] };
  if (values.format !== undefined && !formats[command]?.includes(values.format)) {
    throw new UsageError(`--format must be one of ${formats[command]?.join(', ') ?? 'none'} for ${command}`);
  }
  if (command === 'public-key') {
    if (!config.sealKey) throw new UsageError('Set ACCESS_RECORD_SEAL_KEY: its public half is printed');
    console.log(new SealKey(config.sealKey).publicKey.toString('base64'));
    return 0;
  }
  if (!['verify', 'list', 'report', 'purge'].includes(command)) throw new UsageError('Name a command');
  const dataSource = await new DataSource(buildDataSourceOptions(toDatabaseConfig(env), 'maintenance')).initialize();
  try {
    switch (command) {
      case 'verify':
        return await verify(dataSource, config);
      case 'list':
        await list(dataSource, values);
        return 0;
      case 'report':
        await report(dataSource, config, values.month, values.format);
        return 0;
      default: {
        const { dropped, added } = await new PartitionMaintenance(dataSource).purge(new Date(), config.retentionMonths);
        console.log(`Dropped: ${dropped.join(', ') || 'none'}; made: ${added.join(', ') || 'none'}`);
        return 0;
      }
    }
  } finally {
    await dataSource.destroy();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof UsageError ? `${error.message}\n${USAGE}` : String(error));
    process.exitCode = 2;
  },
);
