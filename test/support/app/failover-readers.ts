import type { Connection, RowDataPacket } from 'mysql2/promise';
import type request from 'supertest';
import { REPLICATED_DATABASE } from '../../../launchers/replication';
import type { App } from 'supertest/types';
import type { ListedOrder, ReadPage } from '../data/failover-writes';
import { api, withReason } from './api-client';
import { adminToken, userToken } from './tokens';

/**
 * Readers throughout a failover, one request at a time in turn: a page of each member the writer writes for (kept,
 * to be judged against the writes that survived), a page of `extra` when given, the back-office's page and an export
 * of every order. Every 5xx is kept by its problem type, so that a failure says which; an administrator's read refused
 * because its access record could not be committed (docs/API.md §21) is counted apart, and each one answered is kept
 * by its request id, to be found among the records.
 */
export function startReaders(server: App, writtenMembers: number[], extra?: () => request.Test) {
  const pages: ReadPage[] = [];
  const failures: string[] = [];
  const adminAnswered: string[] = [];
  let refusedForRecords = 0;
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
  const adminReads = [
    () => api(server, adminToken(9000)).get('/orders?size=20'),
    () => api(server, adminToken(9000)).get(withReason('/orders/export.csv')),
  ];
  const reads = [writtenPage, ...(extra === undefined ? [] : [extra]), ...adminReads];
  const done = (async () => {
    for (let turn = 0; reading; turn += 1) {
      const read = reads[turn % reads.length];
      const response = await read(Math.floor(turn / reads.length));
      answered += 1;
      const type = (response.body as { type?: string }).type;
      const admin = adminReads.includes(read as (typeof adminReads)[number]);
      if (admin && response.status === 503 && type === '/problems/access-record-unavailable') refusedForRecords += 1;
      else if (response.status >= 500) failures.push(`${response.status} ${type}`);
      else if (admin && response.status === 200) adminAnswered.push(String(response.headers['x-request-id']));
    }
  })();
  return {
    /** Whether members' pages were answered yet, to start a failover only once reading is under way. */
    underWay: () => pages.length >= 3,
    stop: async () => {
      reading = false;
      await done;
      return { pages, failures, answered, adminAnswered, refusedForRecords };
    },
  };
}

/** The administrators' answers of `requestIds` that have no access record on the server `connection` reaches. */
export async function withoutRecord(connection: Connection, requestIds: readonly string[]): Promise<string[]> {
  if (requestIds.length === 0) return [];
  const [rows] = await connection.query<RowDataPacket[]>(
    `SELECT request_id AS requestId FROM ${REPLICATED_DATABASE}.access_records WHERE request_id IN (?)`,
    [requestIds],
  );
  const recorded = new Set(rows.map(({ requestId }) => String(requestId)));
  return requestIds.filter((id) => !recorded.has(id));
}
