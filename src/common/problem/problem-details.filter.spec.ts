import { describe, expect, it } from '@jest/globals';
import {
  ArgumentsHost,
  BadRequestException,
  ForbiddenException,
  HttpException,
  NotFoundException,
  UnauthorizedException,
} from '@nestjs/common';
import { InvalidParametersException } from './invalid-parameters.exception';
import { ProblemException } from './problem-details';
import { ProblemDetailsFilter, UnavailableLogThrottle } from './problem-details.filter';

interface Answer {
  status?: number;
  headers: Record<string, string>;
  body?: string;
}

/** A Fastify request and reply just rich enough for the filter: it reads id, method, URL and headers, and writes status, headers and body. */
function hostFor(request: { method?: string; url?: string; authorization?: string } = {}): {
  host: ArgumentsHost;
  answer: Answer;
} {
  const answer: Answer = { headers: {} };
  const reply = {
    sent: false,
    status(code: number) {
      answer.status = code;
      return this;
    },
    header(name: string, value: string) {
      answer.headers[name] = value;
      return this;
    },
    headers(values: Record<string, string>) {
      Object.assign(answer.headers, values);
      return this;
    },
    send(body?: string) {
      answer.body = body;
      return this;
    },
  };
  const req = {
    id: 'req-1',
    method: request.method ?? 'GET',
    url: request.url ?? '/orders',
    headers: { authorization: request.authorization },
  };
  const host = {
    switchToHttp: () => ({ getRequest: () => req, getResponse: () => reply }),
  } as unknown as ArgumentsHost;
  return { host, answer };
}

function answerTo(
  exception: unknown,
  request?: Parameters<typeof hostFor>[0],
): { answer: Answer; problem: Record<string, unknown> } {
  const { host, answer } = hostFor(request);
  new ProblemDetailsFilter(new UnavailableLogThrottle({ now: () => 0 }), []).catch(exception, host);
  return { answer, problem: JSON.parse(answer.body ?? '{}') as Record<string, unknown> };
}

describe('ProblemDetailsFilter', () => {
  it('answers validation failures with errors[] and the problem content type', () => {
    const { answer, problem } = answerTo(
      new InvalidParametersException([{ field: 'page', message: 'page must be an integer of at least 1' }]),
    );
    expect(answer.status).toBe(400);
    expect(answer.headers['Content-Type']).toMatch(/^application\/problem\+json/);
    expect(problem).toEqual({
      type: '/problems/invalid-parameters',
      title: 'Invalid request parameters',
      status: 400,
      detail: 'Invalid parameter page: page must be an integer of at least 1',
      instance: 'urn:request:req-1',
      errors: [{ field: 'page', message: 'page must be an integer of at least 1' }],
    });
  });

  it('adds WWW-Authenticate to a 401, flagging a rejected token as invalid_token', () => {
    expect(answerTo(new UnauthorizedException('x')).answer.headers['WWW-Authenticate']).toBe('Bearer realm="orders"');
    expect(
      answerTo(new UnauthorizedException('x'), { authorization: 'Bearer abc' }).answer.headers['WWW-Authenticate'],
    ).toBe('Bearer realm="orders", error="invalid_token"');
  });

  it('keeps the detail of a 403', () => {
    expect(answerTo(new ForbiddenException('Only administrators may filter by userId')).problem).toMatchObject({
      status: 403,
      title: 'Forbidden',
      detail: 'Only administrators may filter by userId',
    });
  });

  it('does not echo the path parser’s message for an unknown route', () => {
    expect(answerTo(new NotFoundException('Cannot GET /x<script>'), { url: '/x?q=<script>' }).problem.detail).toBe(
      'No resource at GET /x',
    );
  });

  it('replaces the JSON parser’s message, which quotes the client’s body', () => {
    const parseError = Object.assign(new SyntaxError('Unexpected token } in JSON at position 9'), {
      type: 'entity.parse.failed',
      status: 400,
    });
    const { problem } = answerTo(new BadRequestException(parseError.message, { cause: parseError }));
    expect(problem).toMatchObject({
      type: '/problems/invalid-parameters',
      status: 400,
      detail: 'The request body is not valid JSON',
      errors: [{ field: 'body', message: 'The request body is not valid JSON' }],
    });
  });

  it('answers a body in an encoding or charset it cannot read with the typed 415', () => {
    for (const type of ['encoding.unsupported', 'charset.unsupported']) {
      const refused = Object.assign(new Error('unsupported charset "LATIN1"'), { type, status: 415 });
      const { problem } = answerTo(new HttpException(refused.message, 415, { cause: refused }));
      expect(problem).toMatchObject({ type: '/problems/unsupported-media-type', status: 415 });
      expect(problem.detail).not.toContain('LATIN1');
    }
  });

  it('answers a ProblemException with its own type and headers, and nothing of its cause', () => {
    const driverError = Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:3306 SELECT * FROM orders'), {
      code: 'ECONNREFUSED',
    });
    const { answer, problem } = answerTo(
      new ProblemException(
        {
          type: '/problems/example-unavailable',
          title: 'Service Unavailable',
          status: 503,
          detail: 'Try again shortly',
          headers: { 'Retry-After': '7' },
        },
        { cause: driverError },
      ),
    );
    expect(answer.status).toBe(503);
    expect(answer.headers['Retry-After']).toBe('7');
    expect(answer.headers['X-Request-Id']).toBe('req-1');
    expect(answer.body).not.toMatch(/SELECT|10\.0\.0\.5|ECONN/);
    expect(problem).toEqual({
      type: '/problems/example-unavailable',
      title: 'Service Unavailable',
      status: 503,
      detail: 'Try again shortly',
      instance: 'urn:request:req-1',
    });
  });

  it('answers 500 to anything else, telling nothing but the request id', () => {
    const { answer, problem } = answerTo(new TypeError("Cannot read properties of undefined (reading 'id')"));
    expect(answer.status).toBe(500);
    expect(problem).toEqual({
      type: 'about:blank',
      title: 'Internal Server Error',
      status: 500,
      detail: 'An unexpected error occurred',
      instance: 'urn:request:req-1',
    });
  });

  it('replaces Fastify’s message for a malformed URL, which quotes the URL', () => {
    const badUrl = Object.assign(new Error("'/orders%zz' is not a valid url component"), {
      code: 'FST_ERR_BAD_URL',
      statusCode: 400,
    });
    const { problem } = answerTo(new BadRequestException(badUrl.message, { cause: badUrl }));
    expect(problem).toMatchObject({ status: 400, detail: 'The request URL is not validly percent-encoded' });
  });

  it('sends no body to a HEAD request', () => {
    expect(answerTo(new UnauthorizedException('x'), { method: 'HEAD' }).answer.body).toBeUndefined();
  });

  it('logs one 503 line a second per kind, and counts the lines it held back in the next one', () => {
    let now = 0;
    const throttle = new UnavailableLogThrottle({ now: () => now });
    expect([throttle.admit('timeout'), throttle.admit('timeout'), throttle.admit('saturated')]).toEqual([
      0,
      undefined,
      0,
    ]);
    now = 999;
    expect(throttle.admit('timeout')).toBeUndefined();
    now = 1000;
    expect(throttle.admit('timeout')).toBe(2);
    expect(throttle.admit('timeout')).toBeUndefined();
  });
});
