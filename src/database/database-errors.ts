/** Driver error codes meaning "the database cannot answer now" (down, unreachable, overloaded, timed out). */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR',
  'PROTOCOL_ENQUEUE_AFTER_QUIT',
  'ER_CON_COUNT_ERROR',
  'ER_TOO_MANY_USER_CONNECTIONS',
  'ER_SERVER_SHUTDOWN',
  'ER_QUERY_INTERRUPTED',
  'ER_STATEMENT_TIMEOUT',
  'ER_QUERY_TIMEOUT',
  'ER_LOCK_WAIT_TIMEOUT',
  'ER_LOCK_DEADLOCK',
  'ER_CONNECTION_KILLED',
]);

/** mysql2's pool reports these without a code. */
const UNAVAILABLE_POOL_MESSAGES = new Set(['Queue limit reached.', 'No connections available.', 'Pool is closed.']);

/** The database is unreachable, failing, or did not answer within the request's deadline (`timedOut`): a 503. */
export class DatabaseUnavailableError extends Error {
  constructor(
    cause: unknown,
    readonly timedOut = false,
  ) {
    super(timedOut ? 'The database did not answer within the deadline' : 'The database cannot answer now', { cause });
  }
}

/** More requests at once than the pool could answer within the deadline. */
export class DatabaseSaturatedError extends Error {
  constructor() {
    super('More requests at once than the pool answers within the deadline');
  }
}

/** True for failures a client should retry later (503), false for everything else (500). */
export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error;
  // TypeORM wraps the driver's error (QueryFailedError.driverError); look through the chain.
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const candidate = current as { code?: unknown; fatal?: unknown; driverError?: unknown; cause?: unknown };
    if (typeof candidate.code === 'string' && UNAVAILABLE_CODES.has(candidate.code)) return true;
    if (candidate.fatal === true) return true;
    if (current instanceof Error && UNAVAILABLE_POOL_MESSAGES.has(current.message)) return true;
    current = candidate.driverError ?? candidate.cause;
  }
  return false;
}

/** A statement named an index the server lacks (ER_KEY_DOES_NOT_EXITS): its indexes changed since they were read. */
export function isMissingIndex(error: unknown): boolean {
  const driverError = (error as { driverError?: { errno?: unknown } }).driverError ?? error;
  return (driverError as { errno?: unknown }).errno === ER_KEY_DOES_NOT_EXITS;
}
const ER_KEY_DOES_NOT_EXITS = 1176;

/** A failure in a few words for a log line: the driver's code when it has one. */
export const reasonOf = (error: unknown): string =>
  (error as { code?: string }).code ?? (error instanceof Error ? error.message : String(error));

/** A failure of the server itself, not of the request's time or of the service's own capacity. */
export function isServerFailure(error: unknown): boolean {
  if (error instanceof DatabaseSaturatedError) return false;
  if (error instanceof DatabaseUnavailableError) return !error.timedOut;
  return isDatabaseUnavailable(error);
}

/** A driver failure that means "not now" as the 503 `database-unavailable`; anything else as it is (a 500). */
export function asUnavailable(error: unknown): unknown {
  return error instanceof DatabaseUnavailableError || !isDatabaseUnavailable(error)
    ? error
    : new DatabaseUnavailableError(error);
}
