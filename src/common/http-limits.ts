import { HttpException, HttpStatus } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { InvalidParametersException } from './problem/invalid-parameters.exception';
import { plainProblem, problemAnswer } from './problem/problem-details';

/** The largest JSON body of parameters a GET may carry; far above any real request. */
export const MAX_JSON_BODY_BYTES = 16 * 1024;
const MAX_QUERY_STRING_LENGTH = 4096;
const MAX_QUERY_PARAMETERS = 50;

/** Refuses query strings no client of this API needs, before anything parses them (an `onRequest` hook runs before
 * Fastify reads the query): the parser would otherwise split thousands of pairs. */
export function limitQueryString(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
  const query = request.url.split('?').slice(1).join('?');
  if (query.length > MAX_QUERY_STRING_LENGTH) {
    return done(
      new HttpException(
        `The query string is longer than ${MAX_QUERY_STRING_LENGTH} characters`,
        HttpStatus.URI_TOO_LONG,
      ),
    );
  }
  if (query.split('&').length > MAX_QUERY_PARAMETERS) {
    return done(
      new InvalidParametersException([
        { field: 'query', message: `The query string has more than ${MAX_QUERY_PARAMETERS} parameters` },
      ]),
    );
  }
  done();
}

const PARSER_ERRORS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'The request line or headers are larger than the server accepts'],
  HPE_URI_TOO_LONG: [414, 'The request URL is too long'],
};

/** Fastify's `clientErrorHandler`: requests that Node's HTTP parser rejects (oversized headers, a raw non-ASCII
 * URL, broken framing) never become a request; they are answered as problem+json like every other error. */
export function answerUnparsableRequest(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable || (error.code === 'ECONNRESET' && socket.destroyed)) {
    socket.destroy();
    return;
  }
  const [status, detail] = PARSER_ERRORS[error.code ?? ''] ?? [400, 'The request could not be parsed as HTTP'];
  const answer = problemAnswer(plainProblem(status, detail), randomUUID());
  const headers = { ...answer.headers, 'Content-Length': String(Buffer.byteLength(answer.body)), Connection: 'close' };
  socket.end(
    [
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      '',
      answer.body,
    ].join('\r\n'),
  );
}
