import request, { type Test } from 'supertest';
import type { App } from 'supertest/types';

/** The header a caller's token travels in (RFC 6750): the one place the suites write it, for fetch and supertest. */
export const bearer = (token: string): { Authorization: string } => ({ Authorization: `Bearer ${token}` });

/** The service in the test's process, called by the holder of `token`, or anonymously without one. */
export function api(server: App, token?: string) {
  const as = (call: Test): Test => (token === undefined ? call : call.set(bearer(token)));
  return {
    get: (path: string): Test => as(request(server).get(path)),
    head: (path: string): Test => as(request(server).head(path)),
    delete: (path: string): Test => as(request(server).delete(path)),
  };
}

/** Why the suites' administrators download orders: an administrator's export states one (docs/API.md §13). */
const DOWNLOAD_REASON = 'Checking what the listing exports, in the test suites';

/** `path` with the reason an administrator's export states. */
export const withReason = (path: string): string =>
  `${path}${path.includes('?') ? '&' : '?'}reason=${encodeURIComponent(DOWNLOAD_REASON)}`;
