import { CanActivate, ExecutionContext, ForbiddenException, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { Caller, Role } from './role';

export const ROLES_KEY = 'roles';

@Injectable()
export class RolesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    // The handler's own roles override the controller's, never the other way round.
    const allowed = this.reflector.getAllAndOverride<Role[] | undefined>(ROLES_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!allowed || allowed.length === 0) {
      return true;
    }
    const caller = context.switchToHttp().getRequest<Request & { user?: Caller }>().user;
    if (!caller || !allowed.includes(caller.role)) {
      throw new ForbiddenException(`This operation requires one of the roles: ${allowed.join(', ')}`);
    }
    return true;
  }
}
