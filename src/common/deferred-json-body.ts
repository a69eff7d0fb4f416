import bodyParser from 'body-parser';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MAX_JSON_BODY_BYTES } from './http-limits';
import { problemOf, ProblemException } from './problem/problem-details';

declare module 'fastify' {
  interface FastifyRequest {
    /** Why the JSON body could not be read, if it could not; answered only after the 401 and 403 checks. */
    bodyError?: Error;
  }
}

/** Whether the request carries a body at all, as HTTP frames one (RFC 9112 §6.3). */
const hasBody = (request: FastifyRequest): boolean =>
  request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;

/** docs/API.md §1 accepts the parameters as a JSON body on the GET, which Fastify never parses (it reads bodies of
 * POST, PUT and the like only). */
export function deferredJsonBody() {
  const parse = bodyParser.json({ limit: MAX_JSON_BODY_BYTES });
  return (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    // Most listings carry no body: nothing to parse, and body-parser would find the same.
    if (!hasBody(request)) return done();
    parse(request.raw, reply.raw, (error?: unknown) => {
      const parsed = (request.raw as { body?: unknown }).body;
      if (error) request.bodyError = error instanceof Error ? error : new Error('unreadable body');
      // body-parser reads JSON only and passes any other body by: refused, so that form-style parameters a client
      // sent are never silently ignored.
      else if (parsed === undefined) request.bodyError = new ProblemException(problemOf('unsupportedMediaType'));
      else request.body = parsed;
      done();
    });
  };
}
