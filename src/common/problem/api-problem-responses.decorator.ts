import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { PROBLEMS, type ProblemKind, type ProblemKindName } from './problem-catalogue';
import { PROBLEM_CONTENT_TYPE, problemOf } from './problem-details';
import { FieldErrorDto, ProblemDetailsDto } from './problem-details.dto';

export const REQUEST_ID_HEADER_DOC = {
  'X-Request-Id': {
    description: 'Identifies the request in the logs; echoes a sane id sent by the caller.',
    schema: { type: 'string' },
  },
};
const RETRY_AFTER_DOC = {
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer' } },
};
const WWW_AUTHENTICATE_DOC = {
  'WWW-Authenticate': {
    description: '`Bearer realm="orders"`, with `error="invalid_token"` when a token was sent.',
    schema: { type: 'string' },
  },
};
const instance = 'urn:request:0f8e4b4c-5f47-4a0e-8d0c-2b2f8a6f6a10';

/** What an example of the catalogue's 400 shows besides its defaults. */
const INVALID_PARAMETERS_EXAMPLE = {
  detail: 'Invalid parameters: size, sort',
  errors: [
    { field: 'size', message: 'size must be an integer from 1 to 100' },
    {
      field: 'sort',
      message:
        '"price" is not a sortable field; use one of orderId, concertId, totalPrice, status, createdAt, updatedAt',
    },
  ],
};

type Status = ProblemKind['status'];

/** The given kinds, all of one status, each as a named OpenAPI example. */
function examplesOf(status: Status, kinds: ProblemKindName[]) {
  const examples = Object.fromEntries(
    kinds.map((kind) => {
      const entry: ProblemKind = PROBLEMS[kind];
      const { type, title, detail, errors } = problemOf(
        kind,
        kind === 'invalidParameters' ? INVALID_PARAMETERS_EXAMPLE : {},
      );
      const retryAfter = entry.retryAfterSeconds === undefined ? '' : ` Retry-After ${entry.retryAfterSeconds}.`;
      const value = { type, title, status, detail, instance, ...(errors && { errors }) };
      return [kind, { summary: `${entry.when}${retryAfter}`, value }];
    }),
  );
  const description = kinds.map((kind) => PROBLEMS[kind].when).join(' Or: ');
  const retries = kinds.some((kind) => 'retryAfterSeconds' in PROBLEMS[kind]) || status === 429;
  return { examples, description, retries };
}

/** Documents error answers as RFC 9457 problem details, each kind of the catalogue as an example: a status stands
 * for every kind answered with it, a kind's name for that kind alone. */
export function ApiProblemResponses(...answers: Array<Status | ProblemKindName>): MethodDecorator & ClassDecorator {
  const kinds = answers.flatMap((answer) =>
    typeof answer === 'string'
      ? [answer]
      : (Object.keys(PROBLEMS) as ProblemKindName[]).filter((kind) => PROBLEMS[kind].status === answer),
  );
  const statuses = [...new Set(kinds.map((kind) => PROBLEMS[kind].status as Status))];
  return applyDecorators(
    ApiExtraModels(ProblemDetailsDto, FieldErrorDto),
    ...statuses.map((status) => {
      const { examples, description, retries } = examplesOf(
        status,
        kinds.filter((kind) => PROBLEMS[kind].status === status),
      );
      return ApiResponse({
        status,
        description,
        headers: {
          ...REQUEST_ID_HEADER_DOC,
          ...(retries && RETRY_AFTER_DOC),
          ...(status === 401 && WWW_AUTHENTICATE_DOC),
        },
        content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: getSchemaPath(ProblemDetailsDto) }, examples } },
      });
    }),
  );
}
