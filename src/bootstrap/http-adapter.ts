import { FastifyAdapter } from '@nestjs/platform-fastify';
import { parse as parseQueryString } from 'node:querystring';
import { answerUnparsableRequest } from '../common/http-limits';
import { answerFrameworkError } from '../common/problem/problem-details.filter';
import { chooseRequestId } from '../common/request-id';
import type { ProxyTrust } from '../config/trusted-proxies';
import { traceRequests } from '../observability/tracing';

/** The HTTP server under Nest: Fastify, chosen over Express by measurement (docs/BENCHMARKS.md). */
export function createHttpAdapter(trustProxy?: ProxyTrust): FastifyAdapter {
  const adapter = new FastifyAdapter({
    // TRUST_PROXY: which hops' X-Forwarded-For names the client (request.ip), for rate limits and logs.
    trustProxy,
    // Requests are logged by one hook through nestjs-pino's logger (logging/request-log.ts); Fastify's would add more.
    logger: false,
    genReqId: chooseRequestId,
    requestIdHeader: false,
    clientErrorHandler: answerUnparsableRequest,
    // A malformed URL is refused by the router before any hook or Nest filter could see it.
    frameworkErrors: answerFrameworkError,
    // During shutdown the requests still arriving on open connections are answered, not refused with Fastify's
    // plain-JSON 503: the grace period exists for them.
    return503OnClosing: false,
    routerOptions: {
      // `/orders/` and `/Orders` name the same resource, as they did on Express.
      ignoreTrailingSlash: true,
      caseSensitive: false,
      // Node's own parser: repeated names become arrays, which validation then refuses by name.
      querystringParser: (query) => parseQueryString(query),
    },
  });
  // First of all hooks: what follows, the request's log line included, runs in the trace.
  traceRequests(adapter.getInstance());
  return adapter;
}
