import { Transform } from 'class-transformer';
import { ValidateIf } from 'class-validator';

/** Unlike `@IsOptional()`, lets `null` through to validation: `{"page": null}` is a mistake to report, not a way
 * to ask for the default. */
export const Optional = (): PropertyDecorator => ValidateIf((_, value) => value !== undefined);

/** Stands in for `@Type(() => Number)`, which would accept `1e3`, `0x10`, ` 7` and the empty string as numbers. */
export const ToInteger = (): PropertyDecorator =>
  Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && /^[0-9]{1,16}$/.test(value) ? Number(value) : value,
  );

/** `sort` arrives as one string, repeated strings (query) or an array (JSON body). */
export const ToList = (): PropertyDecorator =>
  Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? [value] : value));
