import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata, UseGuards } from '@nestjs/common';
import { ApiBearerAuth } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { Caller, Role } from './role';
import { RolesGuard, ROLES_KEY } from './roles.guard';
import { callerOf } from './token-verdict';

export const BEARER_SCHEME = 'bearer';

/** Requires a valid access token whose role is one of `roles`: 401 without one, 403 with another role. */
export function Auth(...roles: Role[]): MethodDecorator & ClassDecorator {
  return applyDecorators(SetMetadata(ROLES_KEY, roles), UseGuards(RolesGuard), ApiBearerAuth(BEARER_SCHEME));
}

/** The caller of a route guarded by {@link Auth}; RolesGuard has let only established callers through. */
export const CurrentCaller = createParamDecorator((_: unknown, context: ExecutionContext): Caller => {
  const caller = callerOf(context.switchToHttp().getRequest<FastifyRequest>().tokenVerdict);
  if (!caller) throw new Error('CurrentCaller used on a route without @Auth');
  return caller;
});
