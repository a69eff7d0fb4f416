import { describe, expect, it, jest } from '@jest/globals';
import { ExecutionContext, ForbiddenException, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Caller, Role } from './role';
import { RolesGuard, ROLES_KEY } from './roles.guard';

class Handler {}
const handler = (): void => undefined;

/** Only what the guard reads: the handler and class for the metadata, and the request carrying the caller. */
function contextFor(user: Caller | undefined): ExecutionContext {
  return {
    getHandler: () => handler,
    getClass: () => Handler,
    switchToHttp: () => ({ getRequest: () => ({ user }) }),
  } as unknown as ExecutionContext;
}

function guardAllowing(roles: Role[] | undefined) {
  const reflector = new Reflector();
  // Returning `roles` stands for what @Auth recorded on the handler.
  const lookup = jest.spyOn(reflector, 'getAllAndOverride').mockReturnValue(roles);
  return { guard: new RolesGuard(reflector), lookup };
}

describe('RolesGuard', () => {
  it('lets in a caller whose role is allowed', () => {
    const { guard } = guardAllowing([Role.User, Role.Admin]);
    expect(guard.canActivate(contextFor({ id: 1, role: Role.User }))).toBe(true);
  });

  it('answers 403 to a caller whose role is not allowed', () => {
    const { guard } = guardAllowing([Role.Admin]);
    expect(() => guard.canActivate(contextFor({ id: 1, role: Role.User }))).toThrow(ForbiddenException);
  });

  it('answers 401 when no caller was established', () => {
    const { guard } = guardAllowing([Role.User]);
    expect(() => guard.canActivate(contextFor(undefined))).toThrow(UnauthorizedException);
  });

  it('lets everyone through a handler that names no roles', () => {
    const { guard } = guardAllowing(undefined);
    expect(guard.canActivate(contextFor(undefined))).toBe(true);
  });

  it('reads the handler’s metadata before the class’s', () => {
    const { guard, lookup } = guardAllowing([Role.User]);
    guard.canActivate(contextFor({ id: 1, role: Role.User }));
    expect(lookup).toHaveBeenCalledWith(ROLES_KEY, [handler, Handler]);
  });
});
