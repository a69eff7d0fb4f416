// class-transformer's implicit conversion reads the emitted design:type metadata.
import 'reflect-metadata';
import { plainToInstance, Transform } from 'class-transformer';
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
  validateSync,
  ValidationError,
} from 'class-validator';
import { IsIanaTimeZone } from './is-iana-time-zone';
import { DATABASE_TLS_MODES, readDatabaseTls } from './database-tls';
import {
  JWT_ALGORITHMS,
  readJwtVerification,
  tokenUseProblems,
  type JwtAlgorithm,
  type JwtVerification,
} from './jwt-verification';
import { readTrustedProxies } from './trusted-proxies';

export const NODE_ENVIRONMENTS = ['development', 'production', 'test'] as const;
export const DATABASE_TYPES = ['sqlite', 'mysql'] as const;
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * Variables whose value is a secret, or may carry one (a password in a URL): a problem with one names it and says
 * what is wrong, never what it holds, since start-up errors end up in logs that many people read.
 */
const SECRET_VARIABLES: ReadonlySet<string> = new Set([
  'JWT_SECRET',
  'JWT_PUBLIC_KEY',
  'PAGE_LINK_SECRET',
  'DB_PASSWORD',
  'REDIS_URL',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
]);

/**
 * One item of a claim or role list: a claim name or dotted path (`cognito:groups`, `https://…/roles`,
 * `realm_access.roles`) or a role value (`Orders.Admin`, `orders:read`). Commas separate the list; a space would
 * split a scope string, so neither may be inside an item.
 */
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

/**
 * Every variable of the service, with its default. Values arrive as strings;
 * `enableImplicitConversion` turns numeric ones into numbers so that a value
 * such as `PORT=abc` fails `@IsInt` and is reported by name.
 */
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

  /**
   * docs/API.md §19: a replica within this is healthy, and tried first; freshness is each read's own, against the
   * primary's position. A replica further behind is not waited for.
   */
  @IsInt()
  @Min(1)
  @Max(86400)
  DB_REPLICA_MAX_LAG_S: number = 5;

  /**
   * docs/API.md §18: when every server that can serve a shape is behind by more than DB_REPLICA_MAX_LAG_S, the least
   * behind still serves it (saying so in `Data-Staleness`) while it is at most this far behind; past it, 503.
   * Five minutes (docs/adr/0018): a sale's peak leaves a replica seconds behind, a replica minutes behind is broken.
   */
  @IsInt()
  @Min(1)
  @Max(86400)
  DB_REPLICA_MAX_STALENESS_S: number = 300;

  /**
   * docs/API.md §19: how long a read waits, on its own connection, for a replica to apply every write the primary had
   * when it came (or the writer's position it names) before the primary serves it instead (docs/adr/0016).
   */
  @IsInt()
  @Min(0)
  @Max(1000)
  DB_REPLICA_WAIT_MS: number = 50;

  /**
   * The most orders a server sorts whole for one request, in a sort none of its indexes reads in order (docs/API.md
   * §14), well within DB_QUERY_TIMEOUT_MS. Past it such a request goes to a replica that holds the listing's indexes,
   * or is refused at once (422) rather than answered 503 at DB_QUERY_TIMEOUT_MS.
   */
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

  /** docs/API.md §2: where an identity provider's tokens carry the member id, a positive integer. */
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

  /** Role values that make a caller a member (USER). */
  @Transform(toList)
  @ArrayNotEmpty({ message: 'JWT_USER_ROLES must name at least one role value' })
  @Matches(LIST_ITEM, { each: true, message: ROLE_VALUE_MESSAGE })
  JWT_USER_ROLES: string[] = ['USER'];

  /**
   * Signs the continuations in `Link` (docs/API.md, "Following pages"); every instance behind one address must share
   * it, so that a link written by one is accepted by the next. Required with NODE_ENV=production.
   */
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

  /** How many exports (docs/API.md §13) one caller may run at once, across all instances when REDIS_URL is set. */
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

  /**
   * Which proxies in front of the service are trusted to name the client in `X-Forwarded-For`: a hop count, or
   * comma-separated addresses and CIDRs. Unset: none, and the client is the connection's peer.
   */
  @IsOptional()
  @IsString()
  TRUST_PROXY?: string;

  /** Base URL of an OTLP/HTTP collector (`/v1/traces` is appended); traces are exported only when set. */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['https', 'http'], require_protocol: true })
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
}

export class InvalidConfigurationError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'InvalidConfigurationError';
  }
}

function describe(error: ValidationError, raw: Record<string, string | undefined>): string {
  const reasons = Object.values(error.constraints ?? {}).join('; ');
  if (SECRET_VARIABLES.has(error.property)) return `${error.property}: ${reasons} (value not shown)`;
  return `${error.property}: ${reasons} (got ${JSON.stringify(raw[error.property])})`;
}

/** Each validated environment's token verification, worked out (and its key parsed) once, while validating. */
const verifications = new WeakMap<EnvironmentVariables, JwtVerification>();

/**
 * The verification the service checks tokens with. Beyond what validation checks, it refuses what would open a
 * real deployment (tokenUseProblems): tools that only reach the database (migrations, seeding) never get here.
 */
export function jwtVerificationOf(env: EnvironmentVariables): JwtVerification {
  let verification = verifications.get(env);
  if (!verification) {
    const read = readJwtVerification(env);
    if (!read.verification || read.problems.length > 0) throw new InvalidConfigurationError(read.problems);
    verification = read.verification;
    verifications.set(env, verification);
  }
  const problems = tokenUseProblems(env, verification);
  if (problems.length > 0) throw new InvalidConfigurationError(problems);
  return verification;
}

/** Rules that span several variables, which class-validator cannot express one property at a time. */
function crossFieldProblems(env: EnvironmentVariables): string[] {
  const problems: string[] = [];
  const { verification, problems: jwtProblems } = readJwtVerification(env);
  problems.push(...jwtProblems);
  if (verification && jwtProblems.length === 0) verifications.set(env, verification);
  problems.push(...readDatabaseTls(env).problems, ...readTrustedProxies(env.TRUST_PROXY).problems);
  if (env.DB_REPLICA_MAX_STALENESS_S < env.DB_REPLICA_MAX_LAG_S) {
    problems.push('DB_REPLICA_MAX_STALENESS_S: must be at least DB_REPLICA_MAX_LAG_S, past which it applies');
  }
  if (env.PAGE_LINK_SECRET !== undefined && env.PAGE_LINK_SECRET === env.JWT_SECRET) {
    problems.push('PAGE_LINK_SECRET: must differ from JWT_SECRET, so that neither secret can stand in for the other');
  }
  if (env.NODE_ENV === 'production') {
    if (env.DB_TYPE === 'sqlite') {
      problems.push('DB_TYPE: the embedded database is for development only; use mysql with NODE_ENV=production');
    }
    if (env.PAGE_LINK_SECRET === undefined) {
      problems.push(
        'PAGE_LINK_SECRET: required with NODE_ENV=production, the same on every instance (32 bytes or more)',
      );
    }
  }
  return problems;
}

/**
 * Validates raw variables (process.env) and fills in defaults. Empty values
 * count as unset, so that `JWT_ISSUER=` in a .env file means "no issuer".
 */
export function validateEnvironment(raw: Record<string, string | undefined>): EnvironmentVariables {
  const present = Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== undefined && value !== ''));
  const env = plainToInstance(EnvironmentVariables, present, {
    enableImplicitConversion: true,
    excludeExtraneousValues: false,
  });
  const errors = validateSync(env, { skipMissingProperties: false, forbidUnknownValues: true });
  const problems = errors.map((error) => describe(error, raw));
  if (problems.length === 0) {
    problems.push(...crossFieldProblems(env));
  }
  if (problems.length > 0) {
    throw new InvalidConfigurationError(problems);
  }
  return env;
}
