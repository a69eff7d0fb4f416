/**
 * docs/API.md §18: an answer read from a replica further behind the primary than DB_REPLICA_MAX_LAG_S says so, with
 * at most how many seconds behind its data is, as an RFC 9651 Integer. `Age` would say how long a cache held the
 * answer, which is another thing; an `X-` name is what RFC 6648 asks new headers not to take.
 */
export const DATA_STALENESS_HEADER = 'Data-Staleness';

/** Whole seconds, rounded up: the header never says the data is fresher than it may be. */
export const dataStalenessOf = (behindSeconds: number): string => String(Math.ceil(behindSeconds));
