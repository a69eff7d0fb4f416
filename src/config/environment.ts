import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { readDatabaseTls } from './database-tls';
import { EnvironmentVariables, SECRET_VARIABLES } from './environment-variables';
import { readJwtVerification, tokenUseProblems, type JwtVerification } from './jwt-verification';
import { readTrustedProxies } from './trusted-proxies';

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

/** The verification the service checks tokens with. */
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
  if (retentionMonths(env.ACCESS_RECORD_RETENTION) < 12) {
    problems.push('ACCESS_RECORD_RETENTION: access records are kept at least a year (docs/API.md §21)');
  }
  if (env.NODE_ENV === 'production') {
    if (env.ACCESS_RECORD_SEAL_KEY === undefined) {
      problems.push('ACCESS_RECORD_SEAL_KEY: required with NODE_ENV=production, 32 random bytes in base64');
    }
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

/** ACCESS_RECORD_RETENTION in months. */
export const retentionMonths = (retention: string): number =>
  Number(retention.slice(0, -1)) * (retention.endsWith('y') ? 12 : 1);

/** Validates raw variables (process.env) and fills in defaults. */
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
