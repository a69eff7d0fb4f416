import { HttpException } from '@nestjs/common';
import { STATUS_CODES } from 'node:http';
import { REQUEST_ID_HEADER } from '../request-id';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export interface FieldError {
  field: string;
  message: string;
}

/** RFC 9457 problem details, as every error of the service is answered (CONTRACT §6), before `instance` is known. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: FieldError[];
  /** Headers the answer needs besides the content type and request id (Retry-After, WWW-Authenticate). */
  headers?: Record<string, string>;
  /** A machine-readable cause, for the logs and metrics; never sent to the client. */
  reason?: string;
}

export const plainProblem = (status: number, detail: string): Problem => ({
  type: 'about:blank',
  title: STATUS_CODES[status] ?? 'Error',
  status,
  detail,
});

/**
 * An error that knows the problem it is answered with. Other modules raise
 * their own kinds (the database's 503, validation's 400) without this module
 * having to know them.
 */
export class ProblemException extends HttpException {
  constructor(
    readonly problem: Problem,
    options?: { cause?: unknown },
  ) {
    super(problem.detail, problem.status, options);
  }
}

export interface ProblemAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * The one writer of problem+json answers, for Fastify's replies and for the
 * raw socket alike. `instance` names the request id under which the failure
 * is logged, so a client can quote it.
 */
export function problemAnswer({ headers, reason: _reason, ...problem }: Problem, requestId: string): ProblemAnswer {
  return {
    status: problem.status,
    headers: {
      'Content-Type': `${PROBLEM_CONTENT_TYPE}; charset=utf-8`,
      [REQUEST_ID_HEADER]: requestId,
      ...headers,
    },
    body: JSON.stringify({ ...problem, instance: `urn:request:${requestId}` }),
  };
}
