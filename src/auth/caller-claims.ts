import type { ClaimMapping } from '../config/auth.config';
import { Caller, Role } from './role';

export type ClaimsCheck = { ok: true; caller: Caller } | { ok: false; reason: string };

function memberIdOf(value: unknown): number | undefined {
  if (typeof value === 'number') {
    return Number.isSafeInteger(value) && value > 0 ? value : undefined;
  }
  if (typeof value === 'string' && /^[1-9][0-9]*$/.test(value)) {
    const id = Number(value);
    return Number.isSafeInteger(id) ? id : undefined;
  }
  return undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A claim by its configured name: taken whole when the token has a claim of exactly that name (`cognito:groups`),
 * else followed through objects by the names between its dots (`realm_access.roles`). */
export function claimAt(claims: Record<string, unknown>, path: string): unknown {
  if (Object.hasOwn(claims, path)) return claims[path];
  let value: unknown = claims;
  for (const name of path.split('.')) {
    if (!isObject(value) || !Object.hasOwn(value, name)) return undefined;
    value = value[name];
  }
  return value;
}

/** RFC 6749 §3.3: scope tokens joined by single spaces, none leading or trailing. */
const SCOPE_LIST = /^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/;

/** An array of strings, or a string: its space-separated values when it is a well-formed scope list, else the one
 * value it is, so that `"ADMIN "` is not read as ADMIN. */
function valuesOf(claim: unknown): string[] {
  if (typeof claim === 'string') return SCOPE_LIST.test(claim) ? claim.split(' ') : [claim];
  if (Array.isArray(claim)) return claim.filter((value): value is string => typeof value === 'string');
  return [];
}

function roleOf(claims: Record<string, unknown>, mapping: ClaimMapping): Role | undefined {
  const granted = new Set(mapping.roles.flatMap((path) => valuesOf(claimAt(claims, path))));
  // An admin value anywhere in the token wins; values are case-sensitive.
  if (mapping.adminRoles.some((value) => granted.has(value))) return Role.Admin;
  if (mapping.userRoles.some((value) => granted.has(value))) return Role.User;
  return undefined;
}

/** docs/API.md §2: a verified token still names nobody usable unless its member id claim holds a positive integer
 * and one of its role claims a role value the configuration knows. */
export function callerFromClaims(claims: Record<string, unknown>, mapping: ClaimMapping): ClaimsCheck {
  const id = memberIdOf(claimAt(claims, mapping.memberId));
  if (id === undefined) {
    return { ok: false, reason: `The token's ${mapping.memberId} claim must be a positive integer member id` };
  }
  const role = roleOf(claims, mapping);
  if (role === undefined) {
    return {
      ok: false,
      reason: `The token carries no role this service knows (looked in ${mapping.roles.join(', ')})`,
    };
  }
  return { ok: true, caller: { id, role } };
}
