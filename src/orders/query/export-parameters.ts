import type { FieldError } from '../../common/problem/problem-details';

// An export's own parameters besides `bom` (docs/API.md §13): why it is downloaded, and which fields it hands over.

export const REASON = 'reason';
export const FIELDS = 'fields';
const REASON_LENGTH = { min: 10, max: 500 };
const CONTROL_CHARACTER = /\p{Cc}/u;

/** Why an export is downloaded, as given: 10–500 characters once trimmed, none a control character. */
export function reasonOf(value: unknown, required: boolean, errors: FieldError[]): string | undefined {
  const fail = (message: string) => {
    errors.push({ field: REASON, message });
    return undefined;
  };
  if (value === undefined) {
    return required
      ? fail(
          `${REASON} is required for an administrator's export: why these orders are downloaded, in 10 to 500 characters`,
        )
      : undefined;
  }
  if (Array.isArray(value)) return fail(`${REASON} must be given once`);
  if (typeof value !== 'string') return fail(`${REASON} must be text`);
  const { length } = [...value.trim()];
  if (length < REASON_LENGTH.min || length > REASON_LENGTH.max) {
    return fail(`${REASON} must be 10 to 500 characters once trimmed, not ${length}`);
  }
  if (CONTROL_CHARACTER.test(value)) return fail(`${REASON} must not hold control characters (line breaks, tabs)`);
  return value;
}

/** The fields an export hands over, in the element's order: names of `known`, comma-separated or repeated. */
export function fieldsOf(value: unknown, known: readonly string[], errors: FieldError[]): string[] | undefined {
  const given = (Array.isArray(value) ? value : [value]).flatMap((part) =>
    typeof part === 'string' ? part.split(',').map((name) => name.trim()) : [String(part)],
  );
  const unknown = given.filter((name) => !known.includes(name));
  const repeated = given.filter((name, index) => given.indexOf(name) !== index);
  if (unknown.length > 0) {
    errors.push({
      field: FIELDS,
      message: `${FIELDS} names ${unknown.map((name) => `"${name}"`).join(', ')}, not a field of these orders; use ${known.join(', ')}`,
    });
  } else if (repeated.length > 0) {
    errors.push({ field: FIELDS, message: `${FIELDS} names ${repeated.map((name) => `"${name}"`).join(', ')} twice` });
  } else {
    return known.filter((name) => given.includes(name));
  }
  return undefined;
}
