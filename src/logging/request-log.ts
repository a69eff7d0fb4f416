import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger, LevelWithSilent } from 'pino';
import { callerOf } from '../auth/token-verdict';

/** What a line says of a request and its answer: id, method, URL, the client's address (as TRUST_PROXY lets
 * X-Forwarded-For name it), status; and who called, where the token said (docs/API.md §12). */
export const requestLineSerializers = {
  req: (request: { id: unknown; method: string; url: string; ip?: string }) => ({
    id: request.id,
    method: request.method,
    url: request.url,
    remoteAddress: request.ip,
  }),
  res: (reply: { statusCode: number }) => ({ statusCode: reply.statusCode }),
};

/** 5xx are errors of the service, 4xx the client's; both stand out from the stream of successes. */
const levelFor = (statusCode: number): LevelWithSilent =>
  statusCode >= 500 ? 'error' : statusCode >= 400 ? 'warn' : 'info';

/** One line per request once its answer is sent, from a Fastify hook rather than pino-http as Nest middleware, which
 * made a child logger and context per request and cost a large share of a page's CPU (docs/BENCHMARKS.md). */
export function logRequests(fastify: FastifyInstance, logger: Logger): void {
  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const caller = callerOf(request.tokenVerdict);
    logger[levelFor(reply.statusCode)](
      {
        req: request,
        res: reply,
        responseTime: Math.round(reply.elapsedTime),
        // OpenTelemetry's names for who made a request; pino-pretty reads a `caller` key as the logging call's place.
        ...(caller && { enduser: { id: String(caller.id), role: caller.role } }),
      },
      'request completed',
    );
    done();
  });
}
