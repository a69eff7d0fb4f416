import { HttpException } from '@nestjs/common';
import { STATUS_CODES } from 'node:http';
import { REQUEST_ID_HEADER } from '../request-id';
import { PROBLEMS, type ProblemKindName, type UnavailableReason } from './problem-catalogue';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export interface FieldError {
  field: string;
  message: string;
}

/** RFC 9457 problem details, as every error of the service is answered, before `instance` is known. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: FieldError[];
  /** Headers the answer needs besides the content type and request id (Retry-After, WWW-Authenticate). */
  headers?: Record<string, string>;
  /** Why a 503 was answered, for the logs and metrics; never sent to the client. */
  reason?: UnavailableReason;
}

export const plainProblem = (status: number, detail: string): Problem => ({
  type: 'about:blank',
  title: STATUS_CODES[status] ?? 'Error',
  status,
  detail,
});

/** A problem of the catalogue, with the detail and field errors of this occurrence. */
export function problemOf(kind: ProblemKindName, occurrence: { detail?: string; errors?: FieldError[] } = {}): Problem {
  const entry = PROBLEMS[kind];
  const retryAfter = 'retryAfterSeconds' in entry ? { 'Retry-After': String(entry.retryAfterSeconds) } : undefined;
  return {
    type: entry.type,
    title: entry.title,
    status: entry.status,
    detail: occurrence.detail ?? entry.detail,
    ...(occurrence.errors && { errors: occurrence.errors }),
    ...(retryAfter && { headers: retryAfter }),
    ...('unavailableReason' in entry && { reason: entry.unavailableReason }),
  };
}

/** An error that knows the problem it is answered with. */
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

/** The one writer of problem+json answers, for Fastify's replies and for the raw socket alike. */
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
