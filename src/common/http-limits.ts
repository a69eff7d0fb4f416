import { BadRequestException, HttpException, HttpStatus } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';
import { PROBLEM_CONTENT_TYPE } from './problem/problem-details.filter';
import { REQUEST_ID_HEADER } from './request-id';

export const MAX_QUERY_STRING_LENGTH = 4096;
export const MAX_QUERY_PARAMETERS = 50;

/**
 * Refuses query strings no client of this API needs, before anything parses
 * them: Express would otherwise split thousands of pairs (and silently drop
 * those past 1,000).
 */
export function limitQueryString(request: Request, _response: Response, next: NextFunction): void {
  const query = request.originalUrl.split('?').slice(1).join('?');
  if (query.length > MAX_QUERY_STRING_LENGTH) {
    return next(
      new HttpException(
        `The query string is longer than ${MAX_QUERY_STRING_LENGTH} characters`,
        HttpStatus.URI_TOO_LONG,
      ),
    );
  }
  if (query.split('&').length > MAX_QUERY_PARAMETERS) {
    return next(new BadRequestException(`The query string has more than ${MAX_QUERY_PARAMETERS} parameters`));
  }
  next();
}

const PARSER_ERRORS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'The request line or headers are larger than the server accepts'],
  HPE_URI_TOO_LONG: [414, 'The request URL is too long'],
};

/**
 * Requests that Node's HTTP parser rejects (oversized headers, a raw non-ASCII
 * URL, broken framing) never reach Express; Node would close them with a bare
 * status line. This answers them as problem+json like every other error.
 */
export function answerUnparsableRequests(server: Server): void {
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => {
    if (!socket.writable || (error.code === 'ECONNRESET' && socket.destroyed)) {
      socket.destroy();
      return;
    }
    const [status, detail] = PARSER_ERRORS[error.code ?? ''] ?? [400, 'The request could not be parsed as HTTP'];
    const requestId = randomUUID();
    const body = JSON.stringify({
      type: 'about:blank',
      title: STATUS_CODES[status],
      status,
      detail,
      instance: `urn:request:${requestId}`,
    });
    socket.end(
      [
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
        `Content-Type: ${PROBLEM_CONTENT_TYPE}; charset=utf-8`,
        `Content-Length: ${Buffer.byteLength(body)}`,
        `${REQUEST_ID_HEADER}: ${requestId}`,
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  });
}
