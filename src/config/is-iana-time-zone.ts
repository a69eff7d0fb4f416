import { registerDecorator, ValidationOptions } from 'class-validator';
import { IANAZone } from 'luxon';

export function IsIanaTimeZone(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isIanaTimeZone',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: '$property must be an IANA time zone such as Asia/Seoul', ...options },
      validator: {
        validate: (value: unknown) => typeof value === 'string' && IANAZone.isValidZone(value),
      },
    });
}
