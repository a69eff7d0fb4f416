import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { STATUS_CODES } from 'node:http';
import { isDatabaseUnavailable } from '../../database/database-errors';
import { requestIdOf } from '../request-id';
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
 * Errors raised by Express before any Nest code runs: the body parser's carry a
 * `type` such as `entity.parse.failed` (Nest wraps them, keeping the original
 * as `cause`); their messages quote the client's input, so each gets a fixed text.
 */
function expressProblem(exception: unknown): Described | undefined {
  if (exception instanceof URIError) return plain(400, 'The request URL is not validly percent-encoded');
  if (typeof exception !== 'object' || exception === null) return undefined;
  const { type, status } = exception as { type?: unknown; status?: unknown };
  if (typeof type !== 'string' || typeof status !== 'number') return undefined;
  switch (type) {
    case 'entity.parse.failed':
      return plain(400, 'The request body is not valid JSON');
    case 'entity.too.large':
      return plain(413, 'The request body is larger than 16 KB');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return plain(415, 'The request body uses an unsupported encoding');
    default:
      return status >= 400 && status < 500 ? plain(status, 'The request body could not be read') : undefined;
  }
}

function messageOf(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : exception.message;
}

function describe(exception: unknown, request: Request): Described {
  if (exception instanceof InvalidParametersException) {
    return {
      type: '/problems/invalid-parameters',
      title: 'Invalid request parameters',
      status: HttpStatus.BAD_REQUEST,
      detail: exception.message,
      errors: exception.errors,
    };
  }
  const fromExpress = expressProblem(exception instanceof HttpException ? exception.cause : exception);
  if (fromExpress) return fromExpress;
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    if (status === 404) {
      return plain(status, `No resource at ${request.method} ${request.path}`);
    }
    const described = plain(status, messageOf(exception));
    if (status === 401) {
      // RFC 6750 §3: tell the client which scheme to use, and that a token it sent was rejected.
      const sentToken = /^bearer\s/i.test(request.get('authorization') ?? '');
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

/**
 * The one place errors become responses. Details of a failure (stack, SQL,
 * driver message) go to the log under the request id, never to the client,
 * who gets that id as the problem's `instance` to quote.
 */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger(ProblemDetailsFilter.name);

  catch(exception: unknown, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<Request>();
    const response = host.switchToHttp().getResponse<Response>();
    const { headers, logAsFailure, ...problem } = describe(exception, request);
    const requestId = requestIdOf(response);
    const body: ProblemDetails = { ...problem, instance: `urn:request:${requestId}` };
    if (logAsFailure) {
      this.logger.error(
        `${request.method} ${request.path} answered ${problem.status} [request ${requestId}]`,
        exception instanceof Error ? exception.stack : String(exception),
      );
    }
    if (response.headersSent) return;
    response.status(problem.status).setHeader('Content-Type', `${PROBLEM_CONTENT_TYPE}; charset=utf-8`);
    for (const [name, value] of Object.entries(headers ?? {})) response.setHeader(name, value);
    response.end(request.method === 'HEAD' ? undefined : JSON.stringify(body));
  }
}
