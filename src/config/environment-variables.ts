// class-transformer's implicit conversion reads the emitted design:type metadata.
import 'reflect-metadata';
import { Transform } from 'class-transformer';
import {
  ArrayNotEmpty,
  IsBoolean,
  IsByteLength,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
} from 'class-validator';
import { IsIanaTimeZone } from './is-iana-time-zone';
import { DATABASE_TLS_MODES } from './database-tls';
import { JWT_ALGORITHMS, type JwtAlgorithm } from './jwt-verification';

export const NODE_ENVIRONMENTS = ['development', 'production', 'test'] as const;
export const DATABASE_TYPES = ['sqlite', 'mysql'] as const;
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Secrets (or values that may hold one): a problem names the variable, never its value, since logs are read widely. */
export const SECRET_VARIABLES: ReadonlySet<string> = new Set([
  'JWT_SECRET',
  'JWT_PUBLIC_KEY',
  'PAGE_LINK_SECRET',
  'DB_PASSWORD',
  'REDIS_URL',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'ACCESS_RECORD_SEAL_KEY',
  'ACCESS_RECORD_DB_PASSWORD',
]);

/** One item of a claim or role list: a claim name or dotted path (`realm_access.roles`), or a role value. */
const LIST_ITEM = /^[^\s,]+$/;
const CLAIM_PATH_MESSAGE = '$property must be claim names without spaces, comma-separated where a list is allowed';
const ROLE_VALUE_MESSAGE = '$property must be role values without spaces, comma-separated';

const toList = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item.length > 0)
    : value;

/** Every variable of the service, with its default. */
export class EnvironmentVariables {
  @IsIn(NODE_ENVIRONMENTS)
  NODE_ENV: (typeof NODE_ENVIRONMENTS)[number] = 'development';

  @IsInt()
  @Min(1)
  @Max(65535)
  PORT: number = 3000;

  @IsIn(DATABASE_TYPES)
  DB_TYPE: (typeof DATABASE_TYPES)[number] = 'sqlite';

  @IsString()
  SQLITE_PATH: string = 'data/orders.sqlite';

  @IsString()
  DB_HOST: string = '127.0.0.1';

  @IsInt()
  @Min(1)
  @Max(65535)
  DB_PORT: number = 3306;

  @IsString()
  DB_USERNAME: string = 'orders';

  @IsString()
  DB_PASSWORD: string = '';

  @IsString()
  DB_DATABASE: string = 'orders';

  @IsInt()
  @Min(1)
  @Max(1000)
  DB_POOL_SIZE: number = 10;

  @IsInt()
  @Min(100)
  @Max(600000)
  DB_QUERY_TIMEOUT_MS: number = 2000;

  /** Read replicas of the primary, `host:port` each, in the order their metrics are numbered (`replica-1`, …). */
  @Transform(toList)
  @Matches(/^[^\s:,]+:\d{1,5}$/, { each: true, message: 'DB_REPLICAS must be a comma-separated list of host:port' })
  DB_REPLICAS: string[] = [];

  /** A replica within this is healthy and tried first; each read's freshness is checked on its own. */
  @IsInt()
  @Min(1)
  @Max(86400)
  DB_REPLICA_MAX_LAG_S: number = 5;

  /** Past DB_REPLICA_MAX_LAG_S the least-behind server serves with `Data-Staleness` up to this far (docs/adr/0018). */
  @IsInt()
  @Min(1)
  @Max(86400)
  DB_REPLICA_MAX_STALENESS_S: number = 300;

  /** How long a read waits on its connection for a replica to apply what it must reflect (docs/adr/0016). */
  @IsInt()
  @Min(0)
  @Max(1000)
  DB_REPLICA_WAIT_MS: number = 50;

  /** The most orders a server sorts whole for one request, well within DB_QUERY_TIMEOUT_MS. */
  @IsInt()
  @Min(0)
  DB_FULL_SORT_MAX_ORDERS: number = 1_000_000;

  /** TLS to every database server (primary and replicas): off, encrypted only, or encrypted and verified. */
  @IsIn(DATABASE_TLS_MODES)
  DB_SSL: (typeof DATABASE_TLS_MODES)[number] = 'off';

  /** The CA that signed the servers' certificates: a PEM file's path, or the PEM itself. */
  @IsOptional()
  @IsString()
  DB_SSL_CA?: string;

  /** HS256's key is 256 bits: 32 bytes or more, counted in bytes as the signature uses them. */
  @IsOptional()
  @IsString()
  @IsByteLength(32, undefined, { message: '$property must be at least 32 bytes long' })
  JWT_SECRET?: string;

  /** PEM; `\n` escapes are accepted because many secret stores and .env files hold one line. */
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.replace(/\\n/g, '\n') : value))
  @IsString()
  JWT_PUBLIC_KEY?: string;

  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['https', 'http'], require_protocol: true })
  JWT_JWKS_URI?: string;

  @IsOptional()
  @Transform(toList)
  @IsIn(JWT_ALGORITHMS, { each: true })
  JWT_ALGORITHMS?: JwtAlgorithm[];

  @IsOptional()
  @IsString()
  JWT_ISSUER?: string;

  @IsOptional()
  @IsString()
  JWT_AUDIENCE?: string;

  @IsInt()
  @Min(0)
  @Max(3600)
  JWT_CLOCK_TOLERANCE_S: number = 30;

  /** Where an identity provider's tokens carry the member id, a positive integer. */
  @Matches(LIST_ITEM, { message: CLAIM_PATH_MESSAGE })
  JWT_MEMBER_ID_CLAIM: string = 'sub';

  /** The claims roles are read from, in order; each a name, or names joined by `.` to reach into objects. */
  @Transform(toList)
  @ArrayNotEmpty({ message: 'JWT_ROLES_CLAIM must name at least one claim' })
  @Matches(LIST_ITEM, { each: true, message: CLAIM_PATH_MESSAGE })
  JWT_ROLES_CLAIM: string[] = ['role', 'roles'];

  /** Role values that make a caller an administrator; one anywhere in the token wins. */
  @Transform(toList)
  @ArrayNotEmpty({ message: 'JWT_ADMIN_ROLES must name at least one role value' })
  @Matches(LIST_ITEM, { each: true, message: ROLE_VALUE_MESSAGE })
  JWT_ADMIN_ROLES: string[] = ['ADMIN'];

  @Transform(toList)
  @ArrayNotEmpty({ message: 'JWT_USER_ROLES must name at least one role value' })
  @Matches(LIST_ITEM, { each: true, message: ROLE_VALUE_MESSAGE })
  JWT_USER_ROLES: string[] = ['USER'];

  /** Signs `Link` continuations; every instance behind one address shares it, so any accepts another's links. */
  @IsOptional()
  @IsString()
  @IsByteLength(32, undefined, { message: '$property must be at least 32 bytes long' })
  PAGE_LINK_SECRET?: string;

  @IsIanaTimeZone()
  APP_TIMEZONE: string = 'Asia/Seoul';

  @IsIn(LOG_LEVELS)
  LOG_LEVEL: (typeof LOG_LEVELS)[number] = 'info';

  @IsInt()
  @Min(0)
  RATE_LIMIT_PER_MINUTE: number = 600;

  /** How many exports one caller may run at once, across all instances when REDIS_URL is set. */
  @IsInt()
  @Min(1)
  @Max(100)
  EXPORTS_PER_CALLER: number = 1;

  @Transform(toList)
  @IsString({ each: true })
  CORS_ORIGINS: string[] = [];

  @IsInt()
  @Min(0)
  @Max(600000)
  SHUTDOWN_GRACE_MS: number = 10000;

  /** After SIGTERM, how long readiness answers 503 while everything else is still served, before the drain. */
  @IsInt()
  @Min(0)
  @Max(600000)
  SHUTDOWN_DELAY_MS: number = 0;

  /** Rate limits and running exports are counted here, across all instances, when set (`redis://host:6379/0`); in the process otherwise. */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['redis', 'rediss'], require_protocol: true })
  REDIS_URL?: string;

  /** Serves the Swagger UI and the OpenAPI document; `false` for a deployment that does not publish its API. */
  // From the raw text: implicit conversion would make any non-empty string, `false` too, true.
  @Transform(({ obj, key }: { obj: Record<string, unknown>; key: string }) =>
    obj[key] === 'true' ? true : obj[key] === 'false' ? false : obj[key],
  )
  @IsBoolean({ message: '$property must be true or false' })
  DOCS_ENABLED: boolean = true;

  /** Prometheus metrics listen here, never on the API's port; `0` turns them off. */
  @IsInt()
  @Min(0)
  @Max(65535)
  METRICS_PORT: number = 9464;

  /** Which proxies may name the client in `X-Forwarded-For`: a hop count, or addresses and CIDRs. */
  @IsOptional()
  @IsString()
  TRUST_PROXY?: string;

  /** docs/API.md §21: 32 random bytes in base64 that seal the access records' chains; required in production. */
  @IsOptional()
  @Matches(/^[A-Za-z0-9+/]{43}=$/, { message: '$property must be 32 random bytes in base64 (44 characters)' })
  ACCESS_RECORD_SEAL_KEY?: string;

  /** Public halves of earlier seal keys, base64, comma-separated: `verify` still checks what they sealed. */
  @IsOptional()
  @Transform(toList)
  @Matches(/^[A-Za-z0-9+/]{43}=$/, { each: true, message: '$property must be 32-byte public keys in base64' })
  ACCESS_RECORD_SEAL_PUBLIC_KEYS?: string[];

  /** The account access records are written with: INSERT on the records' tables and nothing more (docs/DEPLOYING.md). */
  @IsOptional()
  @IsString()
  ACCESS_RECORD_DB_USERNAME?: string;

  @IsOptional()
  @IsString()
  ACCESS_RECORD_DB_PASSWORD?: string;

  /** How long records are kept, in years (`2y`) or months (`30m`); at least a year. */
  @Matches(/^[1-9]\d*[ym]$/, { message: '$property must be a number of years (2y) or months (30m)' })
  ACCESS_RECORD_RETENTION: string = '2y';

  @IsInt()
  @Min(1)
  @Max(3600)
  ACCESS_RECORD_SEAL_INTERVAL_S: number = 60;

  /** A download is flagged when it, or its caller's downloads over 24 hours, pass this many orders. */
  @IsInt()
  @Min(1)
  ACCESS_REVIEW_ORDERS: number = 100_000;

  /** Requests outside these hours, in APP_TIMEZONE, are counted in the monthly report. */
  @Matches(/^(Mon-Fri|Mon-Sat|Mon-Sun) ([01]\d|2[0-3]):[0-5]\d-([01]\d|2[0-4]):[0-5]\d$/, {
    message: '$property must read like Mon-Fri 09:00-18:00',
  })
  ACCESS_BUSINESS_HOURS: string = 'Mon-Fri 09:00-18:00';

  /** Base URL of an OTLP/HTTP collector (`/v1/traces` is appended); traces are exported only when set. */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['https', 'http'], require_protocol: true })
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
}
