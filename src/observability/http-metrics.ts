import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ROLE_LABELS } from '../auth/role';
import { callerOf } from '../auth/token-verdict';
import type { Metrics, Variant } from './metrics';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when the answer is an export streamed for as long as the client reads: its duration is the client's
     * pace and the data's size, not the service's latency, and is counted by the export metrics instead. */
    streamedExport?: boolean;
  }
}

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The variant label of a request, by the role its token established. */
export const variantOf = (request: FastifyRequest): Variant => {
  const caller = callerOf(request.tokenVerdict);
  return caller === undefined ? 'none' : ROLE_LABELS[caller.role];
};

/** The one place requests are counted, when their answer has been sent. */
export function observeRequests(fastify: FastifyInstance, metrics: Metrics): void {
  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    if (request.streamedExport) return done();
    const variant = variantOf(request);
    const status = reply.statusCode;
    metrics.requestDuration.observe(
      {
        method: KNOWN_METHODS.has(request.method) ? request.method : 'OTHER',
        route: request.routeOptions.url ?? 'unmatched',
        status_code: String(status),
        variant,
      },
      reply.elapsedTime / 1000,
    );
    if (status === 429) metrics.rateLimited.inc({ variant });
    // A readiness 503 while shutting down is no refusal of a client's request: not counted.
    if (status === 503 && request.problemReason) {
      metrics.unavailable.inc({ reason: request.problemReason });
    }
    done();
  });
}
