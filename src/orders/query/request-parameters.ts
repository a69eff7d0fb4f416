import { InvalidParametersException } from '../../common/problem/invalid-parameters.exception';

/** Parameter name → value as sent: strings (repeated ones as arrays) from the query, JSON values from the body. */
export interface RequestParameters {
  values: Map<string, unknown>;
  /** Names that the query string carries more than once. */
  repeated: Set<string>;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The query string is canonical, a JSON body with the same names is accepted too, and a name present in both
 * takes the query string's value. */
export function mergeRequestParameters(query: unknown, body: unknown): RequestParameters {
  if (body !== undefined && body !== null && !isPlainObject(body)) {
    throw new InvalidParametersException([{ field: 'body', message: 'the JSON body must be an object of parameters' }]);
  }
  const values = new Map<string, unknown>(Object.entries(body ?? {}));
  const repeated = new Set<string>();
  for (const [name, value] of Object.entries(isPlainObject(query) ? query : {})) {
    values.set(name, value);
    if (Array.isArray(value)) repeated.add(name);
  }
  return { values, repeated };
}

/** The names of the parameters sent in either place, whatever the body's shape (a body that is no object sends none). */
export function parameterNames(query: unknown, body: unknown): Set<string> {
  return new Set([...Object.keys(isPlainObject(query) ? query : {}), ...Object.keys(isPlainObject(body) ? body : {})]);
}

/** The value as it would be written in a query string; repeated values stay repeated. */
export function toQueryValues(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(toQueryValues);
  if (typeof value === 'string') return [value];
  return [JSON.stringify(value)];
}
