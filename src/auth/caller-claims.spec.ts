import { describe, expect, it } from '@jest/globals';
import { callerFromClaims } from './caller-claims';
import { Role } from './role';

describe('callerFromClaims', () => {
  it.each([
    [
      { sub: 42, role: 'USER' },
      { id: 42, role: Role.User },
    ],
    [
      { sub: '42', role: 'ADMIN' },
      { id: 42, role: Role.Admin },
    ],
    [
      { sub: 7, roles: ['USER'] },
      { id: 7, role: Role.User },
    ],
    [
      { sub: 7, roles: ['USER', 'ADMIN'] },
      { id: 7, role: Role.Admin },
    ],
    [
      { sub: 7, role: 'USER', roles: ['ADMIN'] },
      { id: 7, role: Role.Admin },
    ],
    [
      { sub: 7, role: 'GUEST', roles: ['USER'] },
      { id: 7, role: Role.User },
    ],
    [
      { sub: '9007199254740991', role: 'USER' },
      { id: 9007199254740991, role: Role.User },
    ],
  ])('accepts %j', (claims, caller) => {
    expect(callerFromClaims(claims)).toEqual({ ok: true, caller });
  });

  it.each([
    { sub: 0, role: 'USER' },
    { sub: -1, role: 'USER' },
    { sub: 1.5, role: 'USER' },
    { sub: '1.5', role: 'USER' },
    { sub: '007', role: 'USER' },
    { sub: ' 7', role: 'USER' },
    { sub: '１２', role: 'USER' },
    { sub: '9007199254740993', role: 'USER' },
    { sub: true, role: 'USER' },
    { sub: null, role: 'USER' },
    { role: 'USER' },
  ])('refuses the subject of %j', (claims) => {
    expect(callerFromClaims(claims)).toEqual({ ok: false, reason: expect.stringContaining('sub') });
  });

  it.each([
    { sub: 1 },
    { sub: 1, role: 'admin' },
    { sub: 1, role: 'Admin' },
    { sub: 1, role: ['ADMIN'] },
    { sub: 1, roles: 'ADMIN' },
    { sub: 1, roles: [] },
    { sub: 1, roles: [{ name: 'ADMIN' }] },
  ])('refuses the role of %j', (claims) => {
    expect(callerFromClaims(claims)).toEqual({ ok: false, reason: expect.stringContaining('role') });
  });
});
