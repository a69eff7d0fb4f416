import bodyParser from 'body-parser';
import type { FastifyReply, FastifyRequest } from 'fastify';

const bodyErrors = new WeakMap<FastifyRequest, Error>();

/**
 * CONTRACT §1 accepts the parameters as a JSON body on the GET, which Fastify
 * never parses (it reads bodies of POST, PUT and the like only). body-parser
 * reads it from the raw request, with the same size limit, charsets and
 * encodings as before. A parse failure is kept with the request instead of
 * answered at once: CONTRACT §3 checks the token (401) and the role (403)
 * before anything else (400), and the guards run after every hook.
 */
export function deferredJsonBody(options: { limit: string }) {
  const parse = bodyParser.json({ limit: options.limit });
  return (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    parse(request.raw, reply.raw, (error?: unknown) => {
      if (error) bodyErrors.set(request, error instanceof Error ? error : new Error('unreadable body'));
      else request.body = (request.raw as { body?: unknown }).body;
      done();
    });
  };
}

/** The body's parse failure, if any, for the handler to raise once the caller is known. */
export function bodyErrorOf(request: FastifyRequest): Error | undefined {
  return bodyErrors.get(request);
}
