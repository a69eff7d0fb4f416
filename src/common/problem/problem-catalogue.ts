/** Every kind of problem the service answers with (docs/API.md §6): its type URI, title, status, default detail,
 * Retry-After, and the reason under which the 503s are counted. */

/** Why a request was answered 503, as `http_server_unavailable_total` labels it. */
export type UnavailableReason =
  'database' | 'timeout' | 'saturated' | 'identity-provider' | 'replica-behind' | 'access-record';

export interface ProblemKind {
  type: string;
  title: string;
  status: number;
  /** The detail unless the raiser says more. */
  detail: string;
  /** What the OpenAPI document says of when this answer comes. */
  when: string;
  retryAfterSeconds?: number;
  /** Set on the 503s the metrics count by reason; a shutting-down readiness answer is not a failure to serve. */
  unavailableReason?: UnavailableReason;
}

export const PROBLEMS = {
  invalidParameters: {
    type: '/problems/invalid-parameters',
    title: 'Invalid request parameters',
    status: 400,
    detail: 'Invalid request parameters',
    when: 'An invalid or unknown parameter, a repeated single-valued parameter, more than 50 parameters in the query string (`field` `query`), or a JSON body that is not valid JSON (`field` `body`): each listed in `errors`.',
  },
  continuationOutdated: {
    type: '/problems/continuation-outdated',
    title: 'Page link from an earlier order',
    status: 400,
    detail:
      'This link continues a walk listed in an earlier order, in which ties were broken newest order first whatever the sort’s direction; start again from the first page',
    when: 'An `after` or `before` written by a version before 3.0.0 for a sort whose tie-break has changed direction since (docs/API.md §3): it cannot continue that walk in the new order, so the caller starts again from the first page, without the continuation.',
  },
  writeLost: {
    type: '/problems/write-lost',
    title: 'Write lost when the primary changed',
    status: 409,
    detail:
      'Read-After-Gtid names a write the current primary does not hold: it was lost when the primary changed; place or check the order again',
    when: 'A `Read-After-Gtid` written by a server whose later writes the current primary does not hold (docs/API.md §20): a write lost in a failover, which no page will ever show.',
  },
  unsupportedMediaType: {
    type: '/problems/unsupported-media-type',
    title: 'Unsupported Media Type',
    status: 415,
    detail:
      'The parameters may be sent as a JSON body (Content-Type: application/json, UTF-8) or in the query string; this body is neither',
    when: 'A request with a body whose Content-Type is not application/json, or whose charset or content encoding is not one the service reads: a body the service cannot read is refused rather than ignored.',
  },
  unauthorized: {
    type: 'about:blank',
    title: 'Unauthorized',
    status: 401,
    detail: 'A bearer access token is required',
    when: 'No bearer token, or one that is malformed, badly signed, expired or not yet valid.',
  },
  forbidden: {
    type: 'about:blank',
    title: 'Forbidden',
    status: 403,
    detail: 'Only administrators may filter by userId',
    when: 'The token carries no role of {userRoles} nor of {adminRoles} in {rolesClaims}, or no positive integer member id in {memberIdClaim}; or a member sent an admin-only filter.',
  },
  exportOnlyAccepted: {
    type: '/problems/not-acceptable',
    title: 'Not Acceptable',
    status: 406,
    detail:
      'GET /orders answers application/json only; exports are GET /orders/export.csv (text/csv), GET /orders/export.ndjson (application/x-ndjson) and GET /orders/export.xlsx (an Excel workbook)',
    when: '`Accept` admits only CSV, NDJSON or XLSX: pages are JSON, and exports are operations of their own.',
  },
  rateLimited: {
    type: 'about:blank',
    title: 'Too Many Requests',
    status: 429,
    detail: 'Too many requests; try again after the time in Retry-After',
    when: 'The caller (member id, else address) sent more than RATE_LIMIT_PER_MINUTE requests in a minute.',
  },
  exportsRunning: {
    type: '/problems/exports-running',
    title: 'Too Many Requests',
    status: 429,
    detail: 'This caller already runs as many exports as it may at once; try again when one has finished',
    when: 'An export while the caller already runs EXPORTS_PER_CALLER of them.',
    retryAfterSeconds: 5,
  },
  queryTooBroad: {
    type: '/problems/query-too-broad',
    title: 'Query too broad for the servers serving',
    status: 422,
    detail: 'This sort over this many orders is more than the servers serving now can answer in time',
    when: 'A sort that no index of the serving servers reads in order (docs/API.md §14), over more than DB_FULL_SORT_MAX_ORDERS orders, and no replica holding the listing indexes serves: refused before any database work. Also a date range sorted by updatedAt whose dates hold more than DB_FULL_SORT_MAX_ORDERS orders: refused once counted, before its page is read. The detail names what makes it answerable: a narrower date range, a userId or consertId filter, a sort by createdAt or orderId, or a replica; for the orders of one member or concert on servers found without the index led by that filter, a server that holds it.',
  },
  pageOutOfReach: {
    type: '/problems/page-out-of-reach',
    title: 'Page out of reach by number',
    status: 422,
    detail: 'This page lies further from both ends of its listing than a server passes in time',
    when: 'A page by number in a sort other than createdAt (or with a userId or consertId), whose distance from the nearer end of its listing passes what the server skips within the request’s budget (docs/API.md §22): refused once counted, before its page is read. The detail says how far, the most, and how to reach those orders: the `Link` continuations, the reversed sort, or a narrower filter.',
  },
  databaseUnavailable: {
    type: '/problems/database-unavailable',
    title: 'Service Unavailable',
    status: 503,
    detail: 'The order database is not answering; try again shortly',
    when: 'The database is unreachable or failing; the service recovers by itself.',
    retryAfterSeconds: 5,
    unavailableReason: 'database',
  },
  databaseTimeout: {
    type: '/problems/database-unavailable',
    title: 'Service Unavailable',
    status: 503,
    detail: 'The order database is not answering; try again shortly',
    when: 'The database did not answer within DB_QUERY_TIMEOUT_MS.',
    retryAfterSeconds: 5,
    unavailableReason: 'timeout',
  },
  replicasBehind: {
    type: '/problems/replicas-behind',
    title: 'Service Unavailable',
    status: 503,
    detail:
      'Only a read replica can serve this sort and filter, and every replica that can is further behind the primary than DB_REPLICA_MAX_STALENESS_S, or not answering; try again shortly',
    when: 'A shape that only replicas holding the listing indexes serve, while each of them is more than DB_REPLICA_MAX_STALENESS_S behind the primary or does not answer (docs/API.md §18). Within that bound such a replica still serves, and says how far behind in `Data-Staleness`.',
    retryAfterSeconds: 5,
    unavailableReason: 'replica-behind',
  },
  serviceBusy: {
    type: '/problems/service-busy',
    title: 'Service Unavailable',
    status: 503,
    detail: 'The service is busy and could not answer in time; try again in a second',
    when: 'More requests are waiting than can be answered within DB_QUERY_TIMEOUT_MS; the database is fine.',
    retryAfterSeconds: 1,
    unavailableReason: 'saturated',
  },
  identityProviderUnavailable: {
    type: '/problems/identity-provider-unavailable',
    title: 'Service Unavailable',
    status: 503,
    detail: 'The access token could not be checked: the identity provider’s keys cannot be fetched; try again shortly',
    when: 'JWKS mode: the token’s key is not known yet and the provider’s key set cannot be fetched. Keep the token.',
    retryAfterSeconds: 5,
    unavailableReason: 'identity-provider',
  },
  accessRecordUnavailable: {
    type: '/problems/access-record-unavailable',
    title: 'Service Unavailable',
    status: 503,
    detail: 'The access record of this request could not be committed, so no data is sent; try again shortly',
    when: 'An administrator’s page or export whose access record (docs/API.md §21) could not be committed within the request’s deadline, or while no server takes writes. Members’ own orders are unaffected.',
    retryAfterSeconds: 5,
    unavailableReason: 'access-record',
  },
  shuttingDown: {
    type: '/problems/shutting-down',
    title: 'Service Unavailable',
    status: 503,
    detail: 'This instance is shutting down; other instances serve the requests',
    when: 'Readiness of an instance that is shutting down, while it still serves for SHUTDOWN_DELAY_MS before it drains.',
    retryAfterSeconds: 1,
  },
} as const satisfies Record<string, ProblemKind>;

export type ProblemKindName = keyof typeof PROBLEMS;

/** Every reason a 503 can be counted under, so that each is exported as 0 from the start. */
export const UNAVAILABLE_REASONS: readonly UnavailableReason[] = [
  ...new Set(
    Object.values(PROBLEMS as Record<string, ProblemKind>).flatMap(({ unavailableReason }) =>
      unavailableReason ? [unavailableReason] : [],
    ),
  ),
];
