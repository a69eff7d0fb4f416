import { describe, expect, it } from '@jest/globals';
import { ForbiddenException, UnauthorizedException } from '@nestjs/common';
import jwt from 'jsonwebtoken';
import { JwtAuthGuard } from './jwt-auth.guard';
import { Role } from './role';

describe('JwtAuthGuard.handleRequest', () => {
  const guard = new JwtAuthGuard();

  it('passes the verified caller on', () => {
    const caller = { id: 3, role: Role.User };
    expect(guard.handleRequest(null, caller, undefined)).toBe(caller);
  });

  it.each([
    [new jwt.TokenExpiredError('jwt expired', new Date()), 'expired'],
    [new jwt.NotBeforeError('jwt not active', new Date()), 'not valid yet'],
    [new jwt.JsonWebTokenError('invalid signature'), 'invalid'],
    [new Error('No auth token'), 'required'],
  ])('turns %s into a 401 that says what was wrong without the verifier’s words', (info, expected) => {
    let thrown: unknown;
    try {
      guard.handleRequest(null, false, info);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UnauthorizedException);
    expect((thrown as Error).message).toContain(expected);
    expect((thrown as Error).message).not.toContain(info.message);
  });

  it('lets a 403 raised while reading the claims through', () => {
    expect(() => guard.handleRequest(new ForbiddenException('no role'), false, undefined)).toThrow(ForbiddenException);
  });
});
