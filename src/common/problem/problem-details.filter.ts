import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import { isDatabaseUnavailable } from '../../database/database-errors';
import { REQUEST_ID_HEADER } from '../request-id';
import { InvalidParametersException, type FieldError } from './invalid-parameters.exception';

/** RFC 9457 problem details, as every error of the service is answered (CONTRACT §6). */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  errors?: FieldError[];
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';
export const DATABASE_RETRY_AFTER_SECONDS = 5;

type Described = Omit<ProblemDetails, 'instance'> & { headers?: Record<string, string>; logAsFailure?: boolean };

const plain = (status: number, detail: string): Described => ({
  type: 'about:blank',
  title: STATUS_CODES[status] ?? 'Error',
  status,
  detail,
});

/**
 * Errors raised before any Nest code runs, whose messages may quote the
 * client's input, so each gets a fixed text: body-parser's carry a `type` such
 * as `entity.parse.failed`, Fastify's a `code` such as `FST_ERR_BAD_URL` (Nest
 * wraps both in an HttpException, keeping the original as `cause`).
 */
function transportProblem(exception: unknown): Described | undefined {
  if (typeof exception !== 'object' || exception === null) return undefined;
  const { type, code, status, statusCode } = exception as Record<string, unknown>;
  const httpStatus = typeof status === 'number' ? status : statusCode;
  if (typeof httpStatus !== 'number' || httpStatus >= 500) return undefined;
  switch (type ?? code) {
    case 'FST_ERR_BAD_URL':
      return plain(400, 'The request URL is not validly percent-encoded');
    case 'entity.parse.failed':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return plain(400, 'The request body is not valid JSON');
    case 'entity.too.large':
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return plain(413, 'The request body is larger than 16 KB');
    case 'encoding.unsupported':
    case 'charset.unsupported':
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return plain(415, 'The request body uses an unsupported encoding or media type');
    default:
      return typeof type === 'string' || (typeof code === 'string' && code.startsWith('FST_'))
        ? plain(httpStatus, 'The request could not be read')
        : undefined;
  }
}

function messageOf(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : exception.message;
}

const pathOf = (request: FastifyRequest): string => request.url.split('?')[0];

function describe(exception: unknown, request: FastifyRequest): Described {
  if (exception instanceof InvalidParametersException) {
    return {
      type: '/problems/invalid-parameters',
      title: 'Invalid request parameters',
      status: HttpStatus.BAD_REQUEST,
      detail: exception.message,
      errors: exception.errors,
    };
  }
  const fromTransport = transportProblem(exception instanceof HttpException ? exception.cause : exception);
  if (fromTransport) return fromTransport;
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    if (status === 404) {
      return plain(status, `No resource at ${request.method} ${pathOf(request)}`);
    }
    const described = plain(status, messageOf(exception));
    if (status === 401) {
      // RFC 6750 §3: tell the client which scheme to use, and that a token it sent was rejected.
      const sentToken = /^bearer\s/i.test(request.headers.authorization ?? '');
      described.headers = {
        'WWW-Authenticate': sentToken ? 'Bearer realm="orders", error="invalid_token"' : 'Bearer realm="orders"',
      };
    }
    return { ...described, logAsFailure: status >= 500 };
  }
  if (isDatabaseUnavailable(exception)) {
    return {
      type: '/problems/database-unavailable',
      title: 'Service Unavailable',
      status: HttpStatus.SERVICE_UNAVAILABLE,
      detail: 'The order database is not answering; try again shortly',
      headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
      logAsFailure: true,
    };
  }
  return { ...plain(HttpStatus.INTERNAL_SERVER_ERROR, 'An unexpected error occurred'), logAsFailure: true };
}

const logger = new Logger('ProblemDetailsFilter');

/**
 * The one place errors become responses. Details of a failure (stack, SQL,
 * driver message) go to the log under the request id, never to the client,
 * who gets that id as the problem's `instance` to quote.
 */
export function answerWithProblem(exception: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const { headers, logAsFailure, ...problem } = describe(exception, request);
  const body: ProblemDetails = { ...problem, instance: `urn:request:${request.id}` };
  if (logAsFailure) {
    logger.error(
      `${request.method} ${pathOf(request)} answered ${problem.status} [request ${request.id}]`,
      exception instanceof Error ? exception.stack : String(exception),
    );
  }
  if (reply.sent) return;
  void reply
    .status(problem.status)
    .header('Content-Type', `${PROBLEM_CONTENT_TYPE}; charset=utf-8`)
    // Set here too: the router rejects a malformed URL before the hook that sets it runs.
    .header(REQUEST_ID_HEADER, request.id)
    .headers(headers ?? {})
    .send(request.method === 'HEAD' ? undefined : JSON.stringify(body));
}

/** Every exception Nest sees, from guards, pipes, handlers and Fastify's own hooks. */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    answerWithProblem(exception, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
  }
}
