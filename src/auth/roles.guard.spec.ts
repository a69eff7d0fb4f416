import { describe, expect, it } from '@jest/globals';
import { Controller, ExecutionContext, ForbiddenException, Get, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Auth } from './auth.decorator';
import { Role } from './role';
import { RolesGuard } from './roles.guard';
import type { TokenVerdict } from './token-verdict';

/** Routes decorated as the application decorates them, so the guard reads real metadata. */
@Controller()
@Auth(Role.Admin)
class ExampleController {
  @Get()
  adminsOnly(): void {}

  @Get()
  @Auth(Role.User)
  usersOnly(): void {}

  @Get()
  @Auth(Role.User, Role.Admin)
  anyone(): void {}
}

@Controller()
class OpenController {
  @Get()
  open(): void {}
}

/** Only what the guard reads: the handler and class for the metadata, and the request carrying the verdict. */
function contextFor(
  controller: new () => object,
  handler: string,
  tokenVerdict: TokenVerdict | undefined,
): ExecutionContext {
  return {
    getHandler: () => (controller.prototype as Record<string, unknown>)[handler],
    getClass: () => controller,
    switchToHttp: () => ({ getRequest: () => ({ tokenVerdict }) }),
  } as unknown as ExecutionContext;
}

const guard = new RolesGuard(new Reflector());
const user: TokenVerdict = { kind: 'caller', caller: { id: 1, role: Role.User } };
const admin: TokenVerdict = { kind: 'caller', caller: { id: 2, role: Role.Admin } };

describe('RolesGuard', () => {
  it('lets in a caller whose role is allowed', () => {
    expect(guard.canActivate(contextFor(ExampleController, 'anyone', user))).toBe(true);
    expect(guard.canActivate(contextFor(ExampleController, 'anyone', admin))).toBe(true);
  });

  it('answers 403 to a caller whose role is not allowed', () => {
    expect(() => guard.canActivate(contextFor(ExampleController, 'adminsOnly', user))).toThrow(ForbiddenException);
  });

  it('lets the handler’s roles override the controller’s', () => {
    expect(guard.canActivate(contextFor(ExampleController, 'usersOnly', user))).toBe(true);
    expect(() => guard.canActivate(contextFor(ExampleController, 'usersOnly', admin))).toThrow(ForbiddenException);
  });

  it('answers 401 without a token, and with the reason when the token was invalid', () => {
    expect(() => guard.canActivate(contextFor(ExampleController, 'anyone', undefined))).toThrow(
      new UnauthorizedException('A bearer access token is required'),
    );
    expect(() =>
      guard.canActivate(
        contextFor(ExampleController, 'anyone', { kind: 'invalid-token', reason: 'The access token has expired' }),
      ),
    ).toThrow(new UnauthorizedException('The access token has expired'));
  });

  it('answers 403 to a verified token that names no usable member or role', () => {
    expect(() =>
      guard.canActivate(
        contextFor(ExampleController, 'anyone', { kind: 'no-usable-identity', reason: 'sub is not a member id' }),
      ),
    ).toThrow(new ForbiddenException('sub is not a member id'));
  });

  it('lets everyone through a route that names no roles', () => {
    expect(guard.canActivate(contextFor(OpenController, 'open', undefined))).toBe(true);
  });
});
