import type request from 'supertest';
import type { App } from 'supertest/types';
import type { ListedOrder, ReadPage } from '../data/failover-writes';
import { api, withReason } from './api-client';
import { adminToken, userToken } from './tokens';

/**
 * Readers throughout a failover, one request at a time in turn: a page of each member the writer writes for (kept,
 * to be judged against the writes that survived), a page of `extra` when given, the back-office's page and an export
 * of every order. Every 5xx is kept by its problem type, so that a failure says which.
 */
export function startReaders(server: App, writtenMembers: number[], extra?: () => request.Test) {
  const pages: ReadPage[] = [];
  const failures: string[] = [];
  let answered = 0;
  let reading = true;
  const writtenPage = async (turn: number) => {
    const member = writtenMembers[turn % writtenMembers.length];
    const sentAt = Date.now();
    const response = await api(server, userToken(member)).get('/orders?size=100');
    pages.push({
      member,
      sentAt,
      status: response.status,
      stale: response.headers['data-staleness'] !== undefined,
      concertIds:
        response.status === 200
          ? (response.body as { elements: ListedOrder[] }).elements.map((element) => element.concertId)
          : [],
    });
    return response;
  };
  const reads = [
    writtenPage,
    ...(extra === undefined ? [] : [extra]),
    () => api(server, adminToken(9000)).get('/orders?size=20'),
    () => api(server, adminToken(9000)).get(withReason('/orders/export.csv')),
  ];
  const done = (async () => {
    for (let turn = 0; reading; turn += 1) {
      const response = await reads[turn % reads.length](Math.floor(turn / reads.length));
      answered += 1;
      if (response.status >= 500) failures.push(`${response.status} ${(response.body as { type?: string }).type}`);
    }
  })();
  return {
    /** Whether members' pages were answered yet, to start a failover only once reading is under way. */
    underWay: () => pages.length >= 3,
    stop: async () => {
      reading = false;
      await done;
      return { pages, failures, answered };
    },
  };
}
