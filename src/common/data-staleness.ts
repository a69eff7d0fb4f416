/** How many seconds behind a replica past DB_REPLICA_MAX_LAG_S may be, at most; `Age` would be a cache's. */
export const DATA_STALENESS_HEADER = 'Data-Staleness';

/** Whole seconds, rounded up: the header never says the data is fresher than it may be. */
export const dataStalenessOf = (behindSeconds: number): string => String(Math.ceil(behindSeconds));
