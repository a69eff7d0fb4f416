import { CanActivate, ExecutionContext, ForbiddenException, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { problemOf, ProblemException } from '../common/problem/problem-details';
import type { FastifyRequest } from 'fastify';
import { Role } from './role';

export const ROLES_KEY = 'roles';

/** Decides every 401 and 403 of a route marked `@Auth(...roles)`, from JwtAuthGuard's verdict: no usable token is 401,
 * a verified token naming nobody usable or carrying another role is 403. */
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
    const verdict = context.switchToHttp().getRequest<FastifyRequest>().tokenVerdict;
    switch (verdict?.kind) {
      case undefined:
        throw new UnauthorizedException('A bearer access token is required');
      case 'invalid-token':
        throw new UnauthorizedException(verdict.reason);
      case 'no-usable-identity':
        throw new ForbiddenException(verdict.reason);
      case 'unverifiable':
        // Not a 401: that would make the client throw away a token that may well be valid.
        throw new ProblemException(problemOf('identityProviderUnavailable'));
      case 'caller':
        if (!allowed.includes(verdict.caller.role)) {
          throw new ForbiddenException(`This operation requires one of the roles: ${allowed.join(', ')}`);
        }
        return true;
    }
  }
}
