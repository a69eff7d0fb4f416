import type { Caller } from './role';

/** What a request's token established: found by JwtAuthGuard on every request, acted on by RolesGuard. */
export type TokenVerdict =
  | { kind: 'caller'; caller: Caller }
  /** Missing, malformed, badly signed, expired, not yet valid, or without `exp`. */
  | { kind: 'invalid-token'; reason: string }
  /** Verified, but its `sub` is not a member id or its role is unknown. */
  | { kind: 'no-usable-identity'; reason: string }
  /** Not checked: its key is not known and the provider's key set cannot be fetched (JWKS mode). */
  | { kind: 'unverifiable'; reason: string };

declare module 'fastify' {
  interface FastifyRequest {
    tokenVerdict?: TokenVerdict;
  }
}

export const callerOf = (verdict: TokenVerdict | undefined): Caller | undefined =>
  verdict?.kind === 'caller' ? verdict.caller : undefined;
