import {
  PERMISSIONS,
  type Permission,
  ROLE_PERMISSIONS,
  ROLES,
  type Role,
} from '@authority-runtime/sdk/wire';

/** The permissions, roles and role table of contract section 2 are the wire contract's. */
export {
  PERMISSIONS,
  type Permission,
  PRIVILEGED_ROLES,
  ROLE_PERMISSIONS,
  ROLES,
  type Role,
} from '@authority-runtime/sdk/wire';

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}

/** Each role's permissions as a set, built once: most credentials have no scopes. */
const ROLE_PERMISSION_SETS = new Map<Role, ReadonlySet<Permission>>(
  ROLES.map((role) => [role, new Set(ROLE_PERMISSIONS[role])]),
);

/** The effective permissions of a credential: its role's, narrowed to its scopes when it has any. */
export function effectivePermissions(
  role: Role,
  scopes: readonly Permission[] | null,
): ReadonlySet<Permission> {
  if (scopes === null) return ROLE_PERMISSION_SETS.get(role) as ReadonlySet<Permission>;
  return new Set(ROLE_PERMISSIONS[role].filter((p) => scopes.includes(p)));
}
