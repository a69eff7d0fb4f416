import { retentionMonths } from './environment';
import type { EnvironmentVariables } from './environment-variables';

/** Working hours, in APP_TIMEZONE: from Monday through `lastWeekday` (1 Monday … 7 Sunday), `from` to `until`. */
export interface BusinessHours {
  lastWeekday: number;
  fromMinute: number;
  untilMinute: number;
}

export interface AccessRecordsConfig {
  /** ACCESS_RECORD_SEAL_KEY; without it (never in production) each process seals with a key of its own. */
  sealKey?: Buffer;
  /** Every public key `verify` accepts: the seal key's own half is added where the key is given. */
  publicKeys: Buffer[];
  /** The records' account on MySQL; the service's own where none is set, which the check at start reports. */
  account: { username: string; password: string };
  retentionMonths: number;
  sealIntervalMs: number;
  reviewOrders: number;
  businessHours: BusinessHours;
  timeZone: string;
}

const LAST_WEEKDAY = { 'Mon-Fri': 5, 'Mon-Sat': 6, 'Mon-Sun': 7 } as Record<string, number>;

const minuteOf = (time: string): number => {
  const [hours, minutes] = time.split(':').map(Number);
  return hours * 60 + minutes;
};

export function readBusinessHours(text: string): BusinessHours {
  const [days, hours] = text.split(' ');
  const [from, until] = hours.split('-');
  return { lastWeekday: LAST_WEEKDAY[days], fromMinute: minuteOf(from), untilMinute: minuteOf(until) };
}

export function toAccessRecordsConfig(env: EnvironmentVariables): AccessRecordsConfig {
  return {
    sealKey: env.ACCESS_RECORD_SEAL_KEY === undefined ? undefined : Buffer.from(env.ACCESS_RECORD_SEAL_KEY, 'base64'),
    publicKeys: (env.ACCESS_RECORD_SEAL_PUBLIC_KEYS ?? []).map((key) => Buffer.from(key, 'base64')),
    account: {
      username: env.ACCESS_RECORD_DB_USERNAME ?? env.DB_USERNAME,
      password: env.ACCESS_RECORD_DB_USERNAME === undefined ? env.DB_PASSWORD : (env.ACCESS_RECORD_DB_PASSWORD ?? ''),
    },
    retentionMonths: retentionMonths(env.ACCESS_RECORD_RETENTION),
    sealIntervalMs: env.ACCESS_RECORD_SEAL_INTERVAL_S * 1000,
    reviewOrders: env.ACCESS_REVIEW_ORDERS,
    businessHours: readBusinessHours(env.ACCESS_BUSINESS_HOURS),
    timeZone: env.APP_TIMEZONE,
  };
}
