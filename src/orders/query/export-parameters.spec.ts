import { describe, expect, it } from '@jest/globals';
import type { FieldError } from '../../common/problem/problem-details';
import { fieldsOf, reasonOf } from './export-parameters';

const FIELDS = ['orderId', 'userId', 'concertId', 'seats', 'totalPrice', 'status', 'createdAt', 'updatedAt'];

/** The value a parser answers, and the errors it collected. */
function parsed<T>(parse: (errors: FieldError[]) => T): { value: T; errors: FieldError[] } {
  const errors: FieldError[] = [];
  return { value: parse(errors), errors };
}

describe('an export’s reason and fields (docs/API.md §13)', () => {
  it('takes a reason of 10 to 500 characters once trimmed, as given', () => {
    const given = '  Settlement with the organiser of concert 7 ';
    expect(parsed((errors) => reasonOf(given, true, errors))).toEqual({ value: given, errors: [] });
    // Characters, not UTF-16 units: ten Hangul syllables are ten.
    expect(parsed((errors) => reasonOf('정산확인을위한다운로드', true, errors)).errors).toEqual([]);
    // A hostile text is text: it is taken as it is, and only ever written as a value.
    const hostile = '=HYPERLINK("http://x") \'; DROP TABLE orders; --';
    expect(parsed((errors) => reasonOf(hostile, true, errors)).value).toBe(hostile);
  });

  it.each([
    ['missing, of an administrator', undefined, /required/],
    ['too short once trimmed', '   too short  ', /10 to 500 characters once trimmed, not 9/],
    ['too long', 'x'.repeat(501), /not 501/],
    ['with a line break', 'Settlement\nwith the organiser', /control characters/],
    ['with a tab', 'Settlement\twith the organiser', /control characters/],
    ['given twice', ['Settlement one', 'Settlement two'], /once/],
  ])('refuses a reason %s, naming reason', (_, value, message) => {
    const { value: reason, errors } = parsed((collected) => reasonOf(value, true, collected));
    expect(reason).toBeUndefined();
    expect(errors).toEqual([{ field: 'reason', message: expect.stringMatching(message) }]);
  });

  it('needs no reason of a member, and checks one given all the same', () => {
    expect(parsed((errors) => reasonOf(undefined, false, errors))).toEqual({ value: undefined, errors: [] });
    expect(parsed((errors) => reasonOf('short', false, errors)).errors).toHaveLength(1);
  });

  it('takes fields comma-separated or repeated, and hands them over in the element’s order', () => {
    expect(parsed((errors) => fieldsOf('totalPrice, orderId', FIELDS, errors)).value).toEqual([
      'orderId',
      'totalPrice',
    ]);
    expect(parsed((errors) => fieldsOf(['status', 'userId,seats'], FIELDS, errors)).value).toEqual([
      'userId',
      'seats',
      'status',
    ]);
  });

  it('refuses an unknown, empty or repeated field, naming fields and the field', () => {
    const unknown = parsed((errors) => fieldsOf('orderId,price', FIELDS, errors));
    expect(unknown.value).toBeUndefined();
    expect(unknown.errors).toEqual([{ field: 'fields', message: expect.stringContaining('"price"') }]);
    // A member's elements have no userId.
    expect(parsed((errors) => fieldsOf('userId', ['orderId'], errors)).errors).toHaveLength(1);
    expect(parsed((errors) => fieldsOf('', FIELDS, errors)).errors).toHaveLength(1);
    expect(parsed((errors) => fieldsOf('orderId,orderId', FIELDS, errors)).errors).toEqual([
      { field: 'fields', message: expect.stringContaining('twice') },
    ]);
  });
});
