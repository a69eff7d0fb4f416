import { Caller, Role } from './role';

export type ClaimsCheck = { ok: true; caller: Caller } | { ok: false; reason: string };

function memberIdOf(sub: unknown): number | undefined {
  if (typeof sub === 'number') {
    return Number.isSafeInteger(sub) && sub > 0 ? sub : undefined;
  }
  if (typeof sub === 'string' && /^[1-9][0-9]*$/.test(sub)) {
    const id = Number(sub);
    return Number.isSafeInteger(id) ? id : undefined;
  }
  return undefined;
}

function roleOf(claims: Record<string, unknown>): Role | undefined {
  const granted: unknown[] = [claims.role, ...(Array.isArray(claims.roles) ? (claims.roles as unknown[]) : [])];
  // CONTRACT §2: ADMIN anywhere in the token wins; the names are case-sensitive.
  if (granted.includes(Role.Admin)) return Role.Admin;
  if (granted.includes(Role.User)) return Role.User;
  return undefined;
}

/** CONTRACT §2: a verified token still names nobody usable unless `sub` is a positive integer and the role is known. */
export function callerFromClaims(claims: Record<string, unknown>): ClaimsCheck {
  const id = memberIdOf(claims.sub);
  if (id === undefined) {
    return { ok: false, reason: 'The token subject (sub) must be a positive integer member id' };
  }
  const role = roleOf(claims);
  if (role === undefined) {
    return { ok: false, reason: 'The token carries no role this service knows (USER or ADMIN)' };
  }
  return { ok: true, caller: { id, role } };
}
