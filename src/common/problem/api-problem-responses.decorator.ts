import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { PROBLEM_CONTENT_TYPE } from './problem-details';
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
const instance = 'urn:request:0f8e4b4c-5f47-4a0e-8d0c-2b2f8a6f6a10';

interface ProblemDoc {
  description: string;
  example: Record<string, unknown>;
  headers?: Record<string, { description: string; schema: { type: string } }>;
}

const PROBLEMS: Record<number, ProblemDoc> = {
  400: {
    description:
      'An invalid or unknown parameter (each listed in `errors`), a repeated single-valued parameter, or a malformed JSON body.',
    example: {
      type: '/problems/invalid-parameters',
      title: 'Invalid request parameters',
      status: 400,
      detail: 'Invalid parameters: size, sort',
      instance,
      errors: [
        { field: 'size', message: 'size must be an integer from 1 to 100' },
        {
          field: 'sort',
          message:
            '"price" is not a sortable field; use one of orderId, concertId, totalPrice, status, createdAt, updatedAt',
        },
      ],
    },
  },
  401: {
    description: 'No bearer token, or one that is malformed, badly signed, expired or not yet valid.',
    example: {
      type: 'about:blank',
      title: 'Unauthorized',
      status: 401,
      detail: 'The access token has expired',
      instance,
    },
    headers: {
      'WWW-Authenticate': {
        description: '`Bearer realm="orders"`, with `error="invalid_token"` when a token was sent.',
        schema: { type: 'string' },
      },
    },
  },
  403: {
    description:
      'The token’s role is neither USER nor ADMIN, its `sub` is not a positive integer, or a USER sent an admin-only filter.',
    example: {
      type: 'about:blank',
      title: 'Forbidden',
      status: 403,
      detail: 'Only administrators may filter by userId',
      instance,
    },
  },
  429: {
    description: 'The caller (member id, else address) sent more than RATE_LIMIT_PER_MINUTE requests in a minute.',
    example: {
      type: 'about:blank',
      title: 'Too Many Requests',
      status: 429,
      detail: 'Too many requests; try again after the time in Retry-After',
      instance,
    },
    headers: RETRY_AFTER_DOC,
  },
  503: {
    description:
      'The database is unreachable or did not answer within DB_QUERY_TIMEOUT_MS (`/problems/database-unavailable`, Retry-After 5; the service recovers by itself), or more requests are waiting than can be answered in time (`/problems/service-busy`, Retry-After 1).',
    example: {
      type: '/problems/database-unavailable',
      title: 'Service Unavailable',
      status: 503,
      detail: 'The order database is not answering; try again shortly',
      instance,
    },
    headers: RETRY_AFTER_DOC,
  },
};

/** Documents the given error statuses as RFC 9457 problem details, each with an example. */
export function ApiProblemResponses(...statuses: Array<keyof typeof PROBLEMS>): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiExtraModels(ProblemDetailsDto, FieldErrorDto),
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: PROBLEMS[status].description,
        headers: { ...REQUEST_ID_HEADER_DOC, ...PROBLEMS[status].headers },
        content: {
          [PROBLEM_CONTENT_TYPE]: {
            schema: { $ref: getSchemaPath(ProblemDetailsDto) },
            example: PROBLEMS[status].example,
          },
        },
      }),
    ),
  );
}
