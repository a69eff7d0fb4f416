import { CanActivate, ExecutionContext, ForbiddenException, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { authenticationFailureOf } from './jwt-auth.guard';
import { Caller, Role } from './role';

export const ROLES_KEY = 'roles';

/**
 * Guards a route marked with `@Auth(...roles)`: 401 without an accepted
 * token (with the reason the token was refused), 403 for another role.
 */
@Injectable()
export class RolesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    // The handler's own roles override the controller's, never the other way round.
    const allowed = this.reflector.getAllAndOverride<Role[] | undefined>(ROLES_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!allowed) {
      return true;
    }
    const request = context.switchToHttp().getRequest<FastifyRequest & { user?: Caller }>();
    const caller = request.user;
    if (!caller) {
      throw authenticationFailureOf(request) ?? new UnauthorizedException('A bearer access token is required');
    }
    if (!allowed.includes(caller.role)) {
      throw new ForbiddenException(`This operation requires one of the roles: ${allowed.join(', ')}`);
    }
    return true;
  }
}
