export enum Role {
  User = 'USER',
  Admin = 'ADMIN',
}

/** Each role as metrics label it. */
export const ROLE_LABELS = { [Role.User]: 'user', [Role.Admin]: 'admin' } as const satisfies Record<Role, string>;

/** Who is calling, as established from a verified access token. */
export interface Caller {
  /** The member id (`sub`). */
  id: number;
  role: Role;
}
