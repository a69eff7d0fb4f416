import type { OpenAPIObject } from '@nestjs/swagger';
import type { ClaimMapping } from '../../config/auth.config';

/** Where the document speaks of the token's claims, it names the ones this deployment reads: the decorators and
 * the problem catalogue are written before the configuration is known, with these placeholders. */
const CLAIM_PLACEHOLDERS = {
  memberIdClaim: '{memberIdClaim}',
  rolesClaims: '{rolesClaims}',
  userRoles: '{userRoles}',
  adminRoles: '{adminRoles}',
} as const;

const quoted = (names: readonly string[], joiner: string) => names.map((name) => `\`${name}\``).join(joiner);

/** The document with its claim placeholders replaced by the configured claim names and role values. */
export function withClaimNames(document: OpenAPIObject, claims: ClaimMapping): OpenAPIObject {
  const names: Record<keyof typeof CLAIM_PLACEHOLDERS, string> = {
    memberIdClaim: quoted([claims.memberId], ''),
    rolesClaims: quoted(claims.roles, ' or '),
    userRoles: quoted(claims.userRoles, ' or '),
    adminRoles: quoted(claims.adminRoles, ' or '),
  };
  let text = JSON.stringify(document);
  for (const [name, placeholder] of Object.entries(CLAIM_PLACEHOLDERS)) {
    // Replaced inside JSON strings: the names are escaped as JSON would write them.
    text = text.replaceAll(placeholder, JSON.stringify(names[name as keyof typeof names]).slice(1, -1));
  }
  return JSON.parse(text) as OpenAPIObject;
}
