import type { FastifyReply, FastifyRequest } from 'fastify';
import fresh from 'fresh';
import { hash } from 'node:crypto';

/** Browsers revalidate on every use, and no shared cache keeps a caller's orders. */
const REVALIDATE_PRIVATELY = 'private, no-cache';

/** A strong validator for a JSON body: the same bytes give the same tag on every instance of the fleet. */
const entityTagOf = (body: Buffer): string => `"${hash('sha1', body, 'base64url')}"`;

/** Sends a JSON body with its entity tag, or `304` with no body when the request's `If-None-Match` names that tag;
 * `fresh` is given that header alone, or it would treat `Cache-Control: no-cache` as unconditional. */
export function sendConditionally(request: FastifyRequest, reply: FastifyReply, json: string): FastifyReply {
  // Encoded once, for the tag and for the socket alike.
  const body = Buffer.from(json, 'utf8');
  const etag = entityTagOf(body);
  void reply.header('ETag', etag).header('Cache-Control', REVALIDATE_PRIVATELY);
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined && fresh({ 'if-none-match': ifNoneMatch }, { etag })) {
    return reply.code(304).send();
  }
  return reply.type('application/json; charset=utf-8').send(body);
}
