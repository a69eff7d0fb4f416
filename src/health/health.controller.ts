import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, HealthIndicatorService, type HealthCheckResult } from '@nestjs/terminus';
import { ApiProblemResponses } from '../common/problem/api-problem-responses.decorator';
import { DatabaseUnavailableError } from '../database/database-errors';
import { DatabaseServers } from '../database/database-servers';
import { GracefulShutdown, ShuttingDownException } from '../lifecycle/graceful-shutdown';
import { SkipRateLimit } from '../rate-limit/rate-limit.guard';

const isTerminusShuttingDown = (error: unknown): boolean =>
  error instanceof ServiceUnavailableException &&
  (error.getResponse() as { status?: unknown }).status === 'shutting_down';

/** Terminus's answer: one entry per check, by name, each with its status and whatever the check adds. */
const CHECKS_SCHEMA = {
  type: 'object',
  additionalProperties: {
    type: 'object',
    required: ['status'],
    properties: { status: { type: 'string', enum: ['up', 'down'] } },
    additionalProperties: true,
  },
};
const HEALTH_SCHEMA = {
  type: 'object',
  required: ['status', 'info', 'error', 'details'],
  properties: {
    status: { type: 'string', enum: ['ok'] },
    info: CHECKS_SCHEMA,
    error: CHECKS_SCHEMA,
    details: CHECKS_SCHEMA,
  },
  example: {
    status: 'ok',
    info: { database: { status: 'up', server: 'primary', role: 'primary', identity: '34607' } },
    error: {},
    details: { database: { status: 'up', server: 'primary', role: 'primary', identity: '34607' } },
  },
};

/** Probes for the orchestrator; no token, and not counted against any rate limit. */
@ApiTags('health')
@SkipRateLimit()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly shutdown: GracefulShutdown,
    private readonly servers: DatabaseServers,
  ) {}

  @Get('live')
  @HealthCheck({ swaggerDocumentation: false })
  @ApiOperation({
    operationId: 'liveness',
    summary: 'Liveness: 200 while the process runs',
    description: 'For the orchestrator; needs no token and is not rate limited.',
    security: [],
  })
  @ApiOkResponse({ description: 'The process runs.', schema: HEALTH_SCHEMA })
  live(): HealthCheckResult {
    // Not through Terminus, which fails every check from SIGTERM on: the process still runs while it drains.
    return { status: 'ok', info: {}, error: {}, details: {} };
  }

  @Get('ready')
  @HealthCheck({ swaggerDocumentation: false })
  @ApiOperation({
    operationId: 'readiness',
    summary: 'Readiness: 200 when the database (the primary, or else a read replica) answers, else 503',
    description:
      'For the orchestrator and load balancers; needs no token and is not rate limited. Answered from the background checks of the database servers (about one a second), so that probing it often costs the database nothing. Also 503 (`/problems/shutting-down`) from SIGTERM on, while the instance still serves for SHUTDOWN_DELAY_MS before it drains.',
    security: [],
  })
  @ApiOkResponse({ description: 'The database answered.', schema: HEALTH_SCHEMA })
  @ApiProblemResponses('databaseUnavailable', 'shuttingDown')
  async ready() {
    if (this.shutdown.isDraining()) throw new ShuttingDownException();
    try {
      return await this.health.check([() => this.database()]);
    } catch (error) {
      // Terminus fails every check once the application shuts down, whichever shutdown hook ran first.
      if (this.shutdown.isDraining() || isTerminusShuttingDown(error)) throw new ShuttingDownException();
      // The same 503 as a listing that finds the database down, not Terminus's own body.
      throw new DatabaseUnavailableError(this.servers.primary.health.problem);
    }
  }

  /** Up while some server can serve the listing: the primary, or, while it does not answer, a replica that does; it names
   * the address and the physical server behind it, so that a moved writer endpoint shows. */
  private database() {
    const check = this.indicators.check('database');
    const serving = this.servers.servingServer();
    if (!serving) return check.down();
    return check.up({
      server: serving.name,
      role: serving.isPrimary ? 'primary' : 'replica',
      identity: serving.knownIdentity,
    });
  }
}
