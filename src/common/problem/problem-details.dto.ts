import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PROBLEMS } from './problem-catalogue';

export class FieldErrorDto {
  @ApiProperty({ example: 'size', description: 'The parameter at fault.' })
  field: string;

  @ApiProperty({ example: 'size must be an integer from 1 to 100' })
  message: string;
}

/** RFC 9457 problem details, the body of every error. */
export class ProblemDetailsDto {
  @ApiProperty({
    example: '/problems/invalid-parameters',
    description: `One of ${[...new Set(Object.values(PROBLEMS).map(({ type }) => `\`${type}\``))].join(', ')}.`,
  })
  type: string;

  @ApiProperty({ example: 'Invalid request parameters' })
  title: string;

  @ApiProperty({ type: 'integer', example: 400 })
  status: number;

  @ApiProperty({ example: 'Invalid parameter size: size must be an integer from 1 to 100' })
  detail: string;

  @ApiProperty({
    example: 'urn:request:0f8e4b4c-5f47-4a0e-8d0c-2b2f8a6f6a10',
    description: 'Identifies this occurrence: the X-Request-Id under which it is logged.',
  })
  instance: string;

  @ApiPropertyOptional({ type: [FieldErrorDto], description: 'On validation failures: every invalid parameter.' })
  errors?: FieldErrorDto[];
}
