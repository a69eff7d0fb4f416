import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { Role, type Caller } from '../auth/role';
import { callerOf } from '../auth/token-verdict';
import { problemAnswer, problemOf } from '../common/problem/problem-details';
import type { AccessAction, ChainLink } from './access-record';
import { AccessRecorder, AccessRecordUnavailableError } from './access-recorder';

declare module 'fastify' {
  interface FastifyRequest {
    /** A page's orders and the distinct `userId`s on it, as its answer hands them over. */
    handedOver?: { orders: number; members: number[] };
    /** The request's parameters as validated; the raw query where validation refused them. */
    accessParameters?: Record<string, unknown>;
    /** The GTID position of the server an export reads. */
    exportPosition?: string;
    /** The request's committed access record, which an export's end names. */
    accessRecord?: ChainLink;
  }
}

/** Headers of data that a refused answer must not carry. */
const DATA_HEADERS = ['content-disposition', 'etag', 'link', 'data-staleness', 'last-modified'];
/** A value of the raw query kept in a record: enough to tell what was asked. */
const MAX_RAW_VALUE = 200;

const actionOf = (request: FastifyRequest): AccessAction | undefined => {
  const route = request.routeOptions.url;
  if (route === '/orders') return 'view';
  return route?.startsWith('/orders/export.') ? 'download' : undefined;
};

function rawParameters(request: FastifyRequest): Record<string, unknown> {
  const query = (request.query ?? {}) as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(query).map(([name, value]) => [name, String(value).slice(0, MAX_RAW_VALUE)]),
  );
}

function recordOf(request: FastifyRequest, reply: FastifyReply, caller: Caller, action: AccessAction) {
  const parameters = request.accessParameters ?? rawParameters(request);
  const { reason, fields } = parameters as { reason?: string; fields?: string[] };
  return {
    at: new Date(),
    identifier: String(caller.id),
    role: caller.role,
    address: request.ip,
    requestId: String(request.id),
    action,
    parameters,
    status: reply.statusCode,
    problem: reply.statusCode >= 400 ? (request.problemType ?? null) : null,
    orders: request.handedOver?.orders ?? null,
    members: request.handedOver?.members ?? null,
    reason: typeof reason === 'string' ? reason : null,
    fields: Array.isArray(fields) ? fields : null,
    position: request.exportPosition ?? null,
  };
}

/** docs/API.md §21: an administrator's answer from the listing or an export leaves once its record is committed;
 * a record that cannot be committed in time turns it into a 503 with no data. */
export function recordAdminAccess(fastify: FastifyInstance, recorder: AccessRecorder, budgetMs: number): void {
  // A callback hook, not an async one: a member's answer passes without a promise of its own.
  fastify.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done) => {
    const caller = callerOf(request.tokenVerdict);
    const action = actionOf(request);
    if (caller?.role !== Role.Admin || !action) return done(null, payload);
    const timeoutMs = Math.max(budgetMs - reply.elapsedTime, 1);
    recorder.record(recordOf(request, reply, caller, action), timeoutMs).then(
      (record) => {
        request.accessRecord = record;
        done(null, payload);
      },
      (error: unknown) => {
        if (!(error instanceof AccessRecordUnavailableError)) return done(error as Error);
        // A refusal hands over nothing: it keeps its own cause, the database's outage say, and the failure is counted.
        if (reply.statusCode >= 400) return done(null, payload);
        if (payload instanceof Readable) payload.destroy();
        request.problemReason = 'access-record';
        const answer = problemAnswer(problemOf('accessRecordUnavailable'), request.id);
        for (const header of DATA_HEADERS) void reply.removeHeader(header);
        void reply.code(answer.status).headers(answer.headers);
        done(null, request.method === 'HEAD' ? '' : answer.body);
      },
    );
  });
}
