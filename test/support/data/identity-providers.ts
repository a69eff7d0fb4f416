/**
 * Tokens as each identity provider issues them, and the settings that let
 * the service read them: what docs/DEPLOYING.md's "Using your identity provider" lists,
 * and what the e2e suite checks. The member id is 4, a member of the dataset.
 */
export interface IdentityProviderCase {
  name: string;
  settings: {
    JWT_MEMBER_ID_CLAIM: string;
    JWT_ROLES_CLAIM: string;
    JWT_ADMIN_ROLES: string;
    JWT_USER_ROLES: string;
  };
  admin: Record<string, unknown>;
  user: Record<string, unknown>;
  withoutMemberId: Record<string, unknown>;
  /** A member id, and roles only of values these settings do not know. */
  withoutRole: Record<string, unknown>;
}

const uuid = '3f9a1c2e-8b7d-4e6f-9a0b-1c2d3e4f5a6b';

export const IDENTITY_PROVIDERS: IdentityProviderCase[] = [
  {
    name: 'Keycloak (client roles, a member id attribute mapped into the token)',
    settings: {
      JWT_MEMBER_ID_CLAIM: 'member_id',
      JWT_ROLES_CLAIM: 'resource_access.orders-api.roles,realm_access.roles',
      JWT_ADMIN_ROLES: 'orders-admin',
      JWT_USER_ROLES: 'orders-user',
    },
    admin: { sub: uuid, member_id: '4', resource_access: { 'orders-api': { roles: ['orders-admin'] } } },
    user: { sub: uuid, member_id: 4, realm_access: { roles: ['offline_access', 'orders-user'] } },
    withoutMemberId: { sub: uuid, resource_access: { 'orders-api': { roles: ['orders-user'] } } },
    withoutRole: { sub: uuid, member_id: 4, realm_access: { roles: ['offline_access', 'uma_authorization'] } },
  },
  {
    name: 'Entra ID (app roles, a directory extension for the member id)',
    settings: {
      JWT_MEMBER_ID_CLAIM: 'extn.memberId',
      JWT_ROLES_CLAIM: 'roles',
      JWT_ADMIN_ROLES: 'Orders.Admin',
      JWT_USER_ROLES: 'Orders.User',
    },
    admin: { sub: 'AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ', 'extn.memberId': 4, roles: ['Orders.Admin'] },
    user: { sub: 'AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ', 'extn.memberId': '4', roles: ['Orders.User'] },
    withoutMemberId: { sub: 'AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ', roles: ['Orders.User'] },
    withoutRole: { sub: 'AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ', 'extn.memberId': 4, roles: ['Billing.Read'] },
  },
  {
    name: 'Cognito (groups, a custom attribute for the member id)',
    settings: {
      JWT_MEMBER_ID_CLAIM: 'custom:member_id',
      JWT_ROLES_CLAIM: 'cognito:groups',
      JWT_ADMIN_ROLES: 'orders-admins',
      JWT_USER_ROLES: 'orders-members',
    },
    admin: { sub: uuid, 'custom:member_id': '4', 'cognito:groups': ['orders-members', 'orders-admins'] },
    user: { sub: uuid, 'custom:member_id': '4', 'cognito:groups': ['orders-members'] },
    withoutMemberId: { sub: uuid, 'cognito:groups': ['orders-members'] },
    withoutRole: { sub: uuid, 'custom:member_id': '4', 'cognito:groups': ['newsletter'] },
  },
  {
    name: 'Auth0 (namespaced claims set by an Action)',
    settings: {
      JWT_MEMBER_ID_CLAIM: 'https://orders.example.com/member_id',
      JWT_ROLES_CLAIM: 'https://orders.example.com/roles',
      JWT_ADMIN_ROLES: 'orders-admin',
      JWT_USER_ROLES: 'orders-member',
    },
    admin: {
      sub: 'auth0|64b0c0ffee',
      'https://orders.example.com/member_id': 4,
      'https://orders.example.com/roles': ['orders-admin'],
    },
    user: {
      sub: 'auth0|64b0c0ffee',
      'https://orders.example.com/member_id': 4,
      'https://orders.example.com/roles': ['orders-member'],
    },
    withoutMemberId: { sub: 'auth0|64b0c0ffee', 'https://orders.example.com/roles': ['orders-member'] },
    withoutRole: {
      sub: 'auth0|64b0c0ffee',
      'https://orders.example.com/member_id': 4,
      'https://orders.example.com/roles': [],
    },
  },
  {
    name: 'Okta (the role granted as a scope, the member id in a custom claim)',
    settings: {
      JWT_MEMBER_ID_CLAIM: 'memberId',
      JWT_ROLES_CLAIM: 'scp,groups',
      JWT_ADMIN_ROLES: 'orders:admin,orders-admins',
      JWT_USER_ROLES: 'orders:read',
    },
    admin: { sub: '00u1a2b3c4d5e6f7g8h9', memberId: 4, scp: ['openid', 'orders:read'], groups: ['orders-admins'] },
    user: { sub: '00u1a2b3c4d5e6f7g8h9', memberId: 4, scp: ['openid', 'orders:read'] },
    withoutMemberId: { sub: '00u1a2b3c4d5e6f7g8h9', scp: ['orders:read'] },
    withoutRole: { sub: '00u1a2b3c4d5e6f7g8h9', memberId: 4, scp: ['openid', 'profile'] },
  },
];
