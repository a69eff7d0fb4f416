import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger, LevelWithSilent } from 'pino';

/**
 * What a line may say about a request and its answer, given Fastify's
 * request and reply: the id Fastify chose, method, URL, client address
 * (the client's, as TRUST_PROXY lets X-Forwarded-For name it, not the
 * proxy's), status. Headers are never logged, and with them no credential.
 */
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

/**
 * One line per request (docs/API.md §10), written when its answer has been
 * sent, from a Fastify hook rather than pino-http mounted as Nest middleware:
 * that middleware runs through middie, makes a child logger and a context
 * per request, and cost a large share of a listing's CPU (docs/BENCHMARKS.md).
 * The logger's serializers ({@link requestLineSerializers}) pick the fields.
 */
export function logRequests(fastify: FastifyInstance, logger: Logger): void {
  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    logger[levelFor(reply.statusCode)](
      { req: request, res: reply, responseTime: Math.round(reply.elapsedTime) },
      'request completed',
    );
    done();
  });
}
