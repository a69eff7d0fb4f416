import { Transform } from 'class-transformer';
import { registerDecorator, ValidateIf, type ValidationOptions } from 'class-validator';
import { parseSort, type SortField } from '../query/sort';

/**
 * Unlike `@IsOptional()`, lets `null` through to validation: `{"page": null}`
 * is a mistake to report, not a way to ask for the default.
 */
export const Optional = (): PropertyDecorator => ValidateIf((_, value) => value !== undefined);

/**
 * Stands in for `@Type(() => Number)`, which would accept `1e3`, `0x10`, ` 7`
 * and the empty string as numbers. Only plain decimal digits become a number;
 * anything else is left as it came, for `@IsInt()` to reject.
 */
export const ToInteger = (): PropertyDecorator =>
  Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && /^[0-9]{1,16}$/.test(value) ? Number(value) : value,
  );

/** `sort` arrives as one string, repeated strings (query) or an array (JSON body). */
export const ToList = (): PropertyDecorator =>
  Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? [value] : value));

export function IsSortSpecification(allowed: readonly SortField[], options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isSortSpecification',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown) =>
          Array.isArray(value) && value.every((term) => typeof term === 'string') && parseSort(value, allowed).ok,
        defaultMessage: (args) => {
          const value: unknown = args?.value;
          if (!Array.isArray(value) || !value.every((term) => typeof term === 'string')) {
            return 'must be a string or an array of strings';
          }
          const result = parseSort(value, allowed);
          return result.ok ? '' : result.message;
        },
      },
    });
}
