import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata, UseGuards } from '@nestjs/common';
import { ApiBearerAuth } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Caller, Role } from './role';
import { RolesGuard, ROLES_KEY } from './roles.guard';

export const BEARER_SCHEME = 'bearer';

/**
 * Requires a valid access token whose role is one of `roles`: 401 without one,
 * 403 with another role. The token itself is read by the global JwtAuthGuard.
 */
export function Auth(...roles: Role[]): MethodDecorator & ClassDecorator {
  return applyDecorators(SetMetadata(ROLES_KEY, roles), UseGuards(RolesGuard), ApiBearerAuth(BEARER_SCHEME));
}

/** The caller established by {@link Auth}. */
export const CurrentCaller = createParamDecorator(
  (_: unknown, context: ExecutionContext): Caller =>
    context.switchToHttp().getRequest<FastifyRequest & { user: Caller }>().user,
);
