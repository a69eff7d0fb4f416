import { problemOf, ProblemException, type FieldError } from './problem-details';

/** A 400 that lists every invalid parameter, rendered with `errors[]`. */
export class InvalidParametersException extends ProblemException {
  constructor(readonly errors: FieldError[]) {
    super(
      problemOf('invalidParameters', {
        detail:
          errors.length === 1
            ? `Invalid parameter ${errors[0].field}: ${errors[0].message}`
            : `Invalid parameters: ${[...new Set(errors.map((error) => error.field))].join(', ')}`,
        errors,
      }),
    );
  }
}
