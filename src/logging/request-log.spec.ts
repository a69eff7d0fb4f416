import { afterEach, describe, expect, it } from '@jest/globals';
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import { Writable } from 'node:stream';
import { Role } from '../auth/role';
import { logRequests, requestLineSerializers } from './request-log';

/** A Fastify instance whose request lines land in `lines`, with the module's field choices. */
function appLoggingTo(lines: Array<Record<string, unknown>>): FastifyInstance {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      callback();
    },
  });
  const logger = pino({ serializers: requestLineSerializers }, sink);
  const app = Fastify({ genReqId: () => 'request-1' });
  logRequests(app, logger);
  app.get('/status/:code', (request, reply) => {
    void reply.code(Number((request.params as { code: string }).code)).send({});
  });
  return app;
}

describe('logRequests', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
  });

  it.each([
    [200, 30],
    [404, 40],
    [503, 50],
  ])('writes one line for a %i answer at level %i, with its request id and status', async (status, level) => {
    const lines: Array<Record<string, unknown>> = [];
    app = appLoggingTo(lines);
    await app.inject({ url: `/status/${status}`, headers: { authorization: 'Bearer secret-token' } });

    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level,
      msg: 'request completed',
      req: { id: 'request-1', method: 'GET', url: `/status/${status}` },
      res: { statusCode: status },
    });
    expect(typeof lines[0].responseTime).toBe('number');
    expect(JSON.stringify(lines[0])).not.toContain('secret-token');
  });

  it('names the caller the token established, by identifier and role, and no one where it established none', async () => {
    const lines: Array<Record<string, unknown>> = [];
    app = appLoggingTo(lines);
    // Where JwtAuthGuard keeps what the token established, set here as it would have.
    app.addHook('onRequest', (request, _reply, done) => {
      if (request.headers['x-member']) {
        request.tokenVerdict = {
          kind: 'caller',
          caller: { id: Number(request.headers['x-member']), role: Role.Admin },
        };
      }
      done();
    });
    await app.inject({ url: '/status/200', headers: { 'x-member': '4242' } });
    await app.inject({ url: '/status/401' });
    expect(lines[0]).toMatchObject({ enduser: { id: '4242', role: 'ADMIN' } });
    expect(lines[1]).not.toHaveProperty('enduser');
  });
});
