import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** helmet's defaults, but `upgrade-insecure-requests`: Swagger UI is served over plain HTTP in development, and upgrading its requests to HTTPS would break it. */
const HELMET_OPTIONS: HelmetOptions = { contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } };

/** The headers helmet sets with these options, found by running helmet's own middleware once. */
function securityHeaders(options: HelmetOptions = HELMET_OPTIONS): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: unknown) => (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => delete headers[name.toLowerCase()],
  } as unknown as ServerResponse;
  let failure: unknown;
  helmet(options)({} as IncomingMessage, response, (error?: unknown) => (failure = error));
  // helmet reports only its own option errors, always as Errors.
  if (failure instanceof Error) throw failure;
  return headers;
}

/** Every answer, errors and 404s included, carries the security headers. */
export function sendSecurityHeaders(fastify: FastifyInstance): void {
  const headers = securityHeaders();
  fastify.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
}
