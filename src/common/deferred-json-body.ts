import bodyParser from 'body-parser';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MAX_JSON_BODY_BYTES } from './http-limits';

declare module 'fastify' {
  interface FastifyRequest {
    /** Why the JSON body could not be read, if it could not; answered only after the 401 and 403 checks. */
    bodyError?: Error;
  }
}

/**
 * docs/API.md §1 accepts the parameters as a JSON body on the GET, which Fastify
 * never parses (it reads bodies of POST, PUT and the like only). body-parser
 * reads it from the raw request. A parse failure is kept on the request
 * instead of answered at once: docs/API.md §3 checks the token (401) and the
 * role (403) before anything else (400), and the guards run after every hook.
 */
export function deferredJsonBody() {
  const parse = bodyParser.json({ limit: MAX_JSON_BODY_BYTES });
  return (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    parse(request.raw, reply.raw, (error?: unknown) => {
      if (error) request.bodyError = error instanceof Error ? error : new Error('unreadable body');
      else request.body = (request.raw as { body?: unknown }).body;
      done();
    });
  };
}
