import { describe, expect, it } from '@jest/globals';
import { toAuthConfig } from '../config/auth.config';
import { validateEnvironment } from '../config/environment';
import { callerFromClaims, claimAt } from './caller-claims';

/** The mapping an unconfigured service reads tokens with (docs/API.md §2's defaults). */
const DEFAULT_CLAIM_MAPPING = toAuthConfig(validateEnvironment({})).claims;
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
    // docs/API.md §2: any role claim may hold a string, an array of strings or a space-separated string.
    [
      { sub: 1, role: ['ADMIN'] },
      { id: 1, role: Role.Admin },
    ],
    [
      { sub: 1, roles: 'USER' },
      { id: 1, role: Role.User },
    ],
    [
      { sub: 1, role: 'USER ADMIN' },
      { id: 1, role: Role.Admin },
    ],
  ])('accepts %j', (claims, caller) => {
    expect(callerFromClaims(claims, DEFAULT_CLAIM_MAPPING)).toEqual({ ok: true, caller });
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
    expect(callerFromClaims(claims, DEFAULT_CLAIM_MAPPING)).toEqual({
      ok: false,
      reason: expect.stringContaining('sub'),
    });
  });

  it.each([
    { sub: 1 },
    { sub: 1, role: 'admin' },
    { sub: 1, role: 'Admin' },
    { sub: 1, roles: [] },
    { sub: 1, roles: [{ name: 'ADMIN' }] },
    { sub: 1, role: 'ADMIN ' },
    { sub: 1, role: ' ADMIN' },
    { sub: 1, role: 'USER  ADMIN' },
  ])('refuses the role of %j', (claims) => {
    expect(callerFromClaims(claims, DEFAULT_CLAIM_MAPPING)).toEqual({
      ok: false,
      reason: expect.stringContaining('role'),
    });
  });

  it('never names the values that would have worked', () => {
    const check = callerFromClaims({ sub: 1, role: 'GUEST' }, DEFAULT_CLAIM_MAPPING);
    expect(check).toEqual({
      ok: false,
      reason: 'The token carries no role this service knows (looked in role, roles)',
    });
  });
});

describe('callerFromClaims, mapped to identity providers (docs/API.md §2)', () => {
  const uuid = '3f9a1c2e-8b7d-4e6f-9a0b-1c2d3e4f5a6b';
  it.each([
    [
      'Keycloak realm and client roles, member id in a mapped claim',
      {
        memberId: 'member_id',
        roles: ['realm_access.roles', 'resource_access.orders-api.roles'],
        adminRoles: ['orders-admin'],
        userRoles: ['orders-user'],
      },
      {
        sub: uuid,
        member_id: '42',
        realm_access: { roles: ['offline_access'] },
        resource_access: { 'orders-api': { roles: ['orders-admin'] } },
      },
      { id: 42, role: Role.Admin },
    ],
    [
      'Entra ID app roles',
      { memberId: 'extn.memberId', roles: ['roles'], adminRoles: ['Orders.Admin'], userRoles: ['Orders.User'] },
      { sub: 'AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ', 'extn.memberId': 42, roles: ['Orders.User'] },
      { id: 42, role: Role.User },
    ],
    [
      'Cognito groups, a name with a colon taken whole',
      {
        memberId: 'custom:member_id',
        roles: ['cognito:groups'],
        adminRoles: ['orders-admins'],
        userRoles: ['orders-members'],
      },
      { sub: uuid, 'custom:member_id': '42', 'cognito:groups': ['orders-admins'] },
      { id: 42, role: Role.Admin },
    ],
    [
      'Auth0 namespaced claims, names with dots and slashes taken whole',
      {
        memberId: 'https://orders.example.com/member_id',
        roles: ['https://orders.example.com/roles'],
        adminRoles: ['admin'],
        userRoles: ['member'],
      },
      {
        sub: 'auth0|64b0c0ffee',
        'https://orders.example.com/member_id': 42,
        'https://orders.example.com/roles': ['member'],
      },
      { id: 42, role: Role.User },
    ],
    [
      'a role granted as a scope (space-separated string)',
      { memberId: 'uid', roles: ['scp', 'scope'], adminRoles: ['orders:admin'], userRoles: ['orders:read'] },
      { sub: 'user@example.com', uid: 42, scope: 'openid profile orders:read' },
      { id: 42, role: Role.User },
    ],
  ])('%s', (_provider, mapping, claims, caller) => {
    expect(callerFromClaims(claims, mapping)).toEqual({ ok: true, caller });
  });

  it('refuses a token without the configured member id, naming the claim', () => {
    const mapping = { ...DEFAULT_CLAIM_MAPPING, memberId: 'member_id' };
    expect(callerFromClaims({ sub: 42, role: 'USER' }, mapping)).toEqual({
      ok: false,
      reason: "The token's member_id claim must be a positive integer member id",
    });
  });

  it('reads a dotted path through objects only, never through arrays or into strings', () => {
    expect(claimAt({ a: { b: { c: 1 } } }, 'a.b.c')).toBe(1);
    expect(claimAt({ 'a.b': 2, a: { b: 3 } }, 'a.b')).toBe(2);
    expect(claimAt({ a: [{ b: 1 }] }, 'a.0.b')).toBeUndefined();
    expect(claimAt({ a: 'text' }, 'a.length')).toBeUndefined();
    expect(claimAt({}, 'constructor')).toBeUndefined();
  });
});
