import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { SkipRateLimit } from '../common/rate-limit.guard';

export const READINESS_PING_TIMEOUT_MS = 1000;

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
  @HealthCheck()
  @ApiOperation({ summary: 'Liveness: 200 while the process runs' })
  live() {
    return this.health.check([]);
  }

  @Get('ready')
  @HealthCheck()
  @ApiOperation({ summary: 'Readiness: 200 when the database answers a ping within 1 s, else 503' })
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
