import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** A caller's id is kept only if it is short and plain, so logs and headers never carry injected text. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Gives every response an `X-Request-Id`: the caller's when sane, else a new UUID. */
export function assignRequestId(request: Request, response: Response, next: NextFunction): void {
  const offered = request.get(REQUEST_ID_HEADER);
  response.setHeader(REQUEST_ID_HEADER, offered && SANE_REQUEST_ID.test(offered) ? offered : randomUUID());
  next();
}

export function requestIdOf(response: Response): string {
  return String(response.getHeader(REQUEST_ID_HEADER) ?? '');
}
