export enum Role {
  User = 'USER',
  Admin = 'ADMIN',
}

/** Who is calling, as established from a verified access token. */
export interface Caller {
  /** The member id (`sub`). */
  id: number;
  role: Role;
}
