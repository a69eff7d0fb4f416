import { describe, expect, it } from '@jest/globals';
import type { OpenAPIObject } from '@nestjs/swagger';
import { withClaimNames } from './claim-names';

/** A document as the decorators write it, before the configuration is known. */
const written = {
  openapi: '3.0.0',
  info: { title: 'Orders', version: '1', description: 'Role {userRoles} or {adminRoles}, read from {rolesClaims}.' },
  paths: {
    '/orders': {
      get: { responses: { '403': { description: 'No member id in {memberIdClaim}; no role {userRoles}.' } } },
    },
  },
} as unknown as OpenAPIObject;

describe('the claim names the document speaks of', () => {
  it('are the configured ones, everywhere they are named', () => {
    const document = withClaimNames(written, {
      memberId: 'member_id',
      roles: ['realm_access.roles', 'https://orders.example.com/roles'],
      userRoles: ['Orders.Read'],
      adminRoles: ['Orders.Admin', 'orders:admin'],
    });
    expect(document.info.description).toBe(
      'Role `Orders.Read` or `Orders.Admin` or `orders:admin`, read from `realm_access.roles` or `https://orders.example.com/roles`.',
    );
    expect(document.paths['/orders'].get?.responses['403']).toEqual({
      description: 'No member id in `member_id`; no role `Orders.Read`.',
    });
  });

  it('stay valid JSON whatever a name holds', () => {
    const document = withClaimNames(written, {
      memberId: 'id"with\\quotes',
      roles: ['role'],
      userRoles: ['USER'],
      adminRoles: ['ADMIN'],
    });
    expect((document.paths['/orders'].get?.responses['403'] as { description: string }).description).toBe(
      'No member id in `id"with\\quotes`; no role `USER`.',
    );
  });
});
