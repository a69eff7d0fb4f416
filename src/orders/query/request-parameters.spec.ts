import { describe, expect, it } from '@jest/globals';
import { InvalidParametersException } from '../../common/problem/invalid-parameters.exception';
import { mergeRequestParameters, toQueryValues } from './request-parameters';

describe('mergeRequestParameters', () => {
  it('takes the query string’s value for a name in both places, and keeps body-only names', () => {
    const { values } = mergeRequestParameters({ size: '6', sort: 'status' }, { size: 4, userId: 2 });
    expect(Object.fromEntries(values)).toEqual({ size: '6', sort: 'status', userId: 2 });
  });

  it('notes names repeated in the query string (they arrive as arrays), not arrays from the body', () => {
    const { repeated } = mergeRequestParameters({ page: ['1', '2'] }, { sort: ['a', 'b'] });
    expect([...repeated]).toEqual(['page']);
  });

  it('treats a missing or empty body as no parameters', () => {
    expect(mergeRequestParameters({}, undefined).values.size).toBe(0);
    expect(mergeRequestParameters({}, {}).values.size).toBe(0);
  });

  it('keeps __proto__ as a plain name instead of changing any prototype', () => {
    const body = JSON.parse('{"__proto__": {"polluted": true}}') as unknown;
    const { values } = mergeRequestParameters({}, body);
    expect([...values.keys()]).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([[[1, 2]], ['text'], [42]])('rejects the body %j, which is not an object', (body) => {
    expect(() => mergeRequestParameters({}, body)).toThrow(InvalidParametersException);
  });
});

describe('toQueryValues', () => {
  it('writes values as a query string would carry them', () => {
    expect(toQueryValues('a')).toEqual(['a']);
    expect(toQueryValues(['a', 'b'])).toEqual(['a', 'b']);
    expect(toQueryValues(7)).toEqual(['7']);
  });
});
