import { BadRequestException } from '@nestjs/common';

export interface FieldError {
  field: string;
  message: string;
}

/** A 400 that lists every invalid parameter (CONTRACT §3, §6), rendered with `errors[]`. */
export class InvalidParametersException extends BadRequestException {
  constructor(readonly errors: FieldError[]) {
    super(
      errors.length === 1
        ? `Invalid parameter ${errors[0].field}: ${errors[0].message}`
        : `Invalid parameters: ${[...new Set(errors.map((error) => error.field))].join(', ')}`,
    );
  }
}
