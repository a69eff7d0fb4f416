import { expect } from '@jest/globals';
import type { Response } from 'supertest';

/** What no error body may contain: traces, SQL, driver or library internals. */
const LEAKS = [
  /\bat [\w.<>]+ \(|\.[jt]s:\d+|node_modules/,
  /\bSELECT\s.+\sFROM\s|\bINSERT INTO\b|\bDELETE FROM\b|\sWHERE\s|`\w+`/,
  // Driver codes are upper case: case-insensitive, `ER_` would find itself in a claim name such as member_id.
  /\bER_[A-Z_]+|\bECONN/,
  /mysql|maria|sqlite|sql\.js|typeorm|QueryFailed|driver|stack/i,
];

/** Asserts an RFC 9457 answer of docs/API.md §6 and returns its body. */
export function expectProblem(response: Response, status: number, fields: string[] = []): Record<string, unknown> {
  expect({ status: response.status, body: response.body as unknown }).toMatchObject({ status });
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = response.body as Record<string, unknown>;
  expect(body).toEqual(
    expect.objectContaining({
      type: expect.any(String),
      title: expect.any(String),
      status,
      detail: expect.any(String),
      instance: expect.any(String),
    }),
  );
  for (const leak of LEAKS) expect(response.text).not.toMatch(leak);
  if (fields.length > 0) {
    const errors = body.errors as Array<{ field: string; message: string }>;
    expect(errors.map((error) => error.field).sort()).toEqual([...fields].sort());
    for (const error of errors) expect(error.message).toEqual(expect.any(String));
  }
  return body;
}
