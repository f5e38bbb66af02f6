/** The closed list of permissions (contract section 2). */
export const PERMISSIONS = [
  'tenant:admin',
  'keys:manage',
  'intent:create',
  'intent:read',
  'intent:token:consume',
  'authority:evaluate',
  'authority:approve',
  'authority:approve:catastrophic',
  'authority:policy:read',
  'authority:policy:write',
  'authority:policy:review',
  'authority:thresholds:write',
  'authority:floor:write',
  'authority:killswitch:write',
  'authority:keys:read',
  'authority:keys:write',
  'audit:read',
  'audit:verify',
  'webhooks:manage',
  'connectors:read',
  'connectors:write',
  'connectors:test',
  'physical:classify',
  'physical:token:issue',
  'physical:token:revoke',
  'physical:revocations:read',
  'physical:snapshots:write',
  'physical:audit:read',
  'physical:audit:report',
  'physical:approvals:read',
  'physical:approvals:decide',
  'physical:actors:read',
  'physical:actors:write',
  'physical:policy:read',
  'physical:policy:write',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export const ROLES = [
  'owner',
  'admin',
  'policy_admin',
  'senior_approver',
  'approver',
  'auditor',
  'agent',
  'edge',
] as const;

export type Role = (typeof ROLES)[number];

const APPROVER: readonly Permission[] = [
  'authority:approve',
  'physical:approvals:read',
  'physical:approvals:decide',
  'intent:read',
  'audit:read',
];

/** Roles and their permissions, as data (contract section 2). */
export const ROLE_PERMISSIONS: Readonly<Record<Role, readonly Permission[]>> = {
  owner: PERMISSIONS,
  admin: PERMISSIONS.filter((p) => p !== 'tenant:admin' && p !== 'authority:floor:write'),
  policy_admin: [
    'authority:policy:read',
    'authority:policy:write',
    'authority:policy:review',
    'authority:thresholds:write',
    'physical:policy:read',
    'physical:policy:write',
    'audit:read',
  ],
  senior_approver: [...APPROVER, 'authority:approve:catastrophic'],
  approver: APPROVER,
  auditor: [
    'intent:read',
    'audit:read',
    'audit:verify',
    'physical:audit:read',
    'connectors:read',
    'authority:policy:read',
    'physical:policy:read',
  ],
  agent: [
    'intent:create',
    'intent:read',
    'intent:token:consume',
    'authority:evaluate',
    'physical:classify',
    'physical:token:issue',
    'physical:snapshots:write',
    'physical:revocations:read',
    'physical:approvals:read',
  ],
  edge: ['physical:revocations:read', 'physical:audit:report', 'intent:token:consume'],
};

/** Roles that need a verified second factor in a portal session (contract section 2). */
export const PRIVILEGED_ROLES: readonly Role[] = [
  'owner',
  'admin',
  'policy_admin',
  'senior_approver',
  'approver',
];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}

/** The effective permissions of a credential: its role's, narrowed to its scopes when it has any. */
/** Each role's permissions as a set, built once: most credentials have no scopes. */
const ROLE_PERMISSION_SETS = new Map<Role, ReadonlySet<Permission>>(
  ROLES.map((role) => [role, new Set(ROLE_PERMISSIONS[role])]),
);

export function effectivePermissions(
  role: Role,
  scopes: readonly Permission[] | null,
): ReadonlySet<Permission> {
  if (scopes === null) return ROLE_PERMISSION_SETS.get(role) as ReadonlySet<Permission>;
  return new Set(ROLE_PERMISSIONS[role].filter((p) => scopes.includes(p)));
}
