import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblemResponses } from '../common/problem/api-problem-responses.decorator';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { SkipRateLimit } from '../common/rate-limit.guard';

export const READINESS_PING_TIMEOUT_MS = 1000;

const HEALTH_SCHEMA = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['ok'] },
    info: { type: 'object', additionalProperties: { type: 'object' } },
    error: { type: 'object', additionalProperties: { type: 'object' } },
    details: { type: 'object', additionalProperties: { type: 'object' } },
  },
  example: { status: 'ok', info: { database: { status: 'up' } }, error: {}, details: { database: { status: 'up' } } },
};

/** CONTRACT §10: probes for the orchestrator; no token, and not counted against any rate limit. */
@ApiTags('health')
@SkipRateLimit()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
  ) {}

  @Get('live')
  @HealthCheck({ swaggerDocumentation: false })
  @ApiOperation({
    operationId: 'liveness',
    summary: 'Liveness: 200 while the process runs',
    description: 'For the orchestrator; needs no token and is not rate limited.',
  })
  @ApiOkResponse({ description: 'The process runs.', schema: HEALTH_SCHEMA })
  live() {
    return this.health.check([]);
  }

  @Get('ready')
  @HealthCheck({ swaggerDocumentation: false })
  @ApiOperation({
    operationId: 'readiness',
    summary: 'Readiness: 200 when the database answers a ping within 1 s, else 503',
    description: 'For the orchestrator; needs no token and is not rate limited.',
  })
  @ApiOkResponse({ description: 'The database answered.', schema: HEALTH_SCHEMA })
  @ApiProblemResponses(503)
  async ready() {
    try {
      return await this.health.check([
        () => this.database.pingCheck('database', { timeout: READINESS_PING_TIMEOUT_MS }),
      ]);
    } catch {
      // Terminus's own body names the failing check's internals; the problem answer says what matters.
      throw new ServiceUnavailableException(
        `The database did not answer a ping within ${READINESS_PING_TIMEOUT_MS} ms`,
      );
    }
  }
}
