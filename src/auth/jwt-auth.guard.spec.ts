import { describe, expect, it } from '@jest/globals';
import jwt from 'jsonwebtoken';
import { JwtAuthGuard } from './jwt-auth.guard';
import { Role } from './role';
import type { TokenVerdict } from './token-verdict';

describe('JwtAuthGuard.handleRequest', () => {
  const guard = new JwtAuthGuard();

  it('passes on the verdict JwtStrategy reached for a verified token', () => {
    const verdict: TokenVerdict = { kind: 'caller', caller: { id: 3, role: Role.User } };
    expect(guard.handleRequest(null, verdict, undefined)).toBe(verdict);
  });

  it.each([
    [new jwt.TokenExpiredError('jwt expired', new Date()), 'expired'],
    [new jwt.NotBeforeError('jwt not active', new Date()), 'not valid yet'],
    [new jwt.JsonWebTokenError('invalid signature'), 'invalid'],
    [new Error('No auth token'), 'required'],
  ])('records %s as an invalid token, saying what was wrong without the verifier’s words', (info, expected) => {
    const verdict = guard.handleRequest<TokenVerdict>(null, false, info);
    expect(verdict).toEqual({ kind: 'invalid-token', reason: expect.stringContaining(expected) });
    expect(verdict.kind === 'invalid-token' && verdict.reason).not.toContain(info.message);
  });

  it('records an error raised while verifying as an invalid token rather than throwing', () => {
    expect(guard.handleRequest<TokenVerdict>(new Error('JWKS endpoint unreachable'), false, undefined)).toEqual({
      kind: 'invalid-token',
      reason: 'The access token is invalid',
    });
  });
});
