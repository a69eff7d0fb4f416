"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.isDatabaseUnavailable = isDatabaseUnavailable;
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
function isDatabaseUnavailable(error) {
    let current = error;
    for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
        const candidate = current;
        if (typeof candidate.code === 'string' && UNAVAILABLE_CODES.has(candidate.code))
            return true;
        if (candidate.fatal === true)
            return true;
        current = candidate.driverError ?? candidate.cause;
    }
    return false;
}
//# sourceMappingURL=database-errors.js.map