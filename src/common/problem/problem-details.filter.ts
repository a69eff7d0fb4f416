import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  HttpStatus,
  Inject,
  Injectable,
  Logger,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MAX_JSON_BODY_BYTES } from '../http-limits';
import { Clock } from '../time/clock';
import type { UnavailableReason } from './problem-catalogue';
import { plainProblem, problemAnswer, problemOf, ProblemException, type Problem } from './problem-details';

const NOT_JSON = 'The request body is not valid JSON';

declare module 'fastify' {
  interface FastifyRequest {
    /** Why the request was answered 503, for whoever counts answers. */
    problemReason?: UnavailableReason;
    /** The problem type answered, for the access record of the request (docs/API.md §21). */
    problemType?: string;
  }
}

/** Errors raised before Nest runs may quote the client's input: each gets a fixed text, by its `type` or `code`. */
function transportProblem(exception: unknown): Problem | undefined {
  if (typeof exception !== 'object' || exception === null) return undefined;
  const { type, code, status, statusCode } = exception as Record<string, unknown>;
  const httpStatus = typeof status === 'number' ? status : statusCode;
  if (typeof httpStatus !== 'number' || httpStatus >= 500) return undefined;
  switch (type ?? code) {
    case 'FST_ERR_BAD_URL':
      return plainProblem(400, 'The request URL is not validly percent-encoded');
    case 'entity.parse.failed':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return problemOf('invalidParameters', { detail: NOT_JSON, errors: [{ field: 'body', message: NOT_JSON }] });
    case 'entity.too.large':
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return plainProblem(413, `The request body is larger than ${MAX_JSON_BODY_BYTES / 1024} KB`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return problemOf('unsupportedMediaType');
    default:
      return typeof type === 'string' || (typeof code === 'string' && code.startsWith('FST_'))
        ? plainProblem(httpStatus, 'The request could not be read')
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

/** What a lower layer's own error means as a problem, for the errors that layer knows; undefined for the rest. */
export type ProblemTranslator = (exception: unknown) => Problem | undefined;

/** The translators the application composes in (ProblemsModule.forRoot): this folder knows no layer above it. */
export const PROBLEM_TRANSLATORS = Symbol('PROBLEM_TRANSLATORS');

function describe(
  exception: unknown,
  request: FastifyRequest,
  translators: readonly ProblemTranslator[] = [],
): Problem {
  if (exception instanceof ProblemException) return exception.problem;
  for (const translate of translators) {
    const translated = translate(exception);
    if (translated) return translated;
  }
  const fromTransport = transportProblem(exception instanceof HttpException ? exception.cause : exception);
  if (fromTransport) return fromTransport;
  if (!(exception instanceof HttpException)) {
    return plainProblem(HttpStatus.INTERNAL_SERVER_ERROR, 'An unexpected error occurred');
  }
  const status: number = exception.getStatus();
  if (status === 404) {
    return plainProblem(status, `No resource at ${request.method} ${pathOf(request)}`);
  }
  const problem = plainProblem(status, messageOf(exception));
  if (status === 401) {
    // RFC 6750 §3: tell the client which scheme to use, and that a token it sent was rejected.
    const sentToken = /^bearer\s/i.test(request.headers.authorization ?? '');
    problem.headers = {
      'WWW-Authenticate': sentToken ? 'Bearer realm="orders", error="invalid_token"' : 'Bearer realm="orders"',
    };
  }
  return problem;
}

/** In a storm of 503s, at most one log line a second per kind; the lines held back are counted in the next one. */
@Injectable()
export class UnavailableLogThrottle {
  static readonly INTERVAL_MS = 1000;
  private readonly kinds = new Map<string, { lastAt: number; heldBack: number }>();

  constructor(private readonly clock: Clock) {}

  /** Undefined when this line is held back; else how many were held back since the last one. */
  admit(kind: string): number | undefined {
    const now = this.clock.now();
    const entry = this.kinds.get(kind) ?? { lastAt: Number.NEGATIVE_INFINITY, heldBack: 0 };
    this.kinds.set(kind, entry);
    if (now - entry.lastAt < UnavailableLogThrottle.INTERVAL_MS) {
      entry.heldBack += 1;
      return undefined;
    }
    const heldBack = entry.heldBack;
    entry.lastAt = now;
    entry.heldBack = 0;
    return heldBack;
  }
}

/** Writes the answer; the request keeps the reason of a 503 for whoever counts answers. */
function send(problem: Problem, request: FastifyRequest, reply: FastifyReply): void {
  request.problemReason = problem.reason;
  request.problemType = problem.type;
  if (reply.sent) return;
  const answer = problemAnswer(problem, request.id);
  void reply
    .status(answer.status)
    .headers(answer.headers)
    .send(request.method === 'HEAD' ? undefined : answer.body);
}

const summaryOf = (request: FastifyRequest, status: number): string =>
  `${request.method} ${pathOf(request)} answered ${status} [request ${request.id}]`;

/** Fastify's `frameworkErrors` handler: what its router refuses before Nest runs is the client's mistake. */
export function answerFrameworkError(exception: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const problem = describe(exception, request);
  if (problem.status >= 500) {
    new Logger('ProblemDetailsFilter').error(summaryOf(request, problem.status), String(exception));
  }
  send(problem, request, reply);
}

/** Every exception Nest sees, from guards, pipes, handlers and Fastify's own hooks, answered as problem+json. */
@Catch()
@Injectable()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger('ProblemDetailsFilter');

  constructor(
    private readonly throttle: UnavailableLogThrottle,
    @Inject(PROBLEM_TRANSLATORS) private readonly translators: readonly ProblemTranslator[],
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const problem = describe(exception, request, this.translators);
    if (problem.status >= 500) this.log(exception, request, problem);
    send(problem, request, http.getResponse<FastifyReply>());
  }

  private log(exception: unknown, request: FastifyRequest, problem: Problem): void {
    const summary = summaryOf(request, problem.status);
    if (problem.status !== 503) {
      this.logger.error(summary, exception instanceof Error ? exception.stack : String(exception));
      return;
    }
    const heldBack = this.throttle.admit(problem.reason ?? problem.type);
    if (heldBack === undefined) return;
    const cause = exception instanceof Error ? exception.cause : exception;
    const more = heldBack > 0 ? ` (and ${heldBack} more 503s of this kind since the last line)` : '';
    // A refusal as busy has no cause beyond itself: its reason says what happened.
    const why = cause instanceof Error ? cause.message : (problem.reason ?? problem.detail);
    this.logger.warn(`${summary}: ${why}${more}`);
  }
}
