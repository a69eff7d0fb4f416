import express, { type NextFunction, type Request, type Response } from 'express';

const bodyErrors = new WeakMap<Request, Error>();

/**
 * Parses JSON bodies like Express's own parser, but keeps a parse failure
 * with the request instead of answering at once: CONTRACT §3 checks the token
 * (401) and the role (403) before anything else (400), and the body parser
 * would otherwise answer before the guards run.
 */
export function deferredJsonBody(options: { limit: string }) {
  const parse = express.json({ limit: options.limit });
  return (request: Request, response: Response, next: NextFunction): void => {
    parse(request, response, (error?: unknown) => {
      if (error) bodyErrors.set(request, error instanceof Error ? error : new Error('unreadable body'));
      next();
    });
  };
}

/** The body's parse failure, if any, for the handler to raise once the caller is known. */
export function bodyErrorOf(request: Request): Error | undefined {
  return bodyErrors.get(request);
}
