/**
 * The roles table of the contract (§2), as the console needs it to decide which pages and actions
 * to show. It only hides what would be refused: the server still decides every request.
 */
export type Permission =
  | 'tenant:admin'
  | 'keys:manage'
  | 'intent:create'
  | 'intent:read'
  | 'intent:token:consume'
  | 'authority:evaluate'
  | 'authority:approve'
  | 'authority:approve:catastrophic'
  | 'authority:policy:read'
  | 'authority:policy:write'
  | 'authority:policy:review'
  | 'authority:thresholds:write'
  | 'authority:floor:write'
  | 'authority:killswitch:write'
  | 'authority:keys:read'
  | 'authority:keys:write'
  | 'audit:read'
  | 'audit:verify'
  | 'webhooks:manage'
  | 'connectors:read'
  | 'connectors:write'
  | 'connectors:test'
  | 'physical:classify'
  | 'physical:token:issue'
  | 'physical:token:revoke'
  | 'physical:revocations:read'
  | 'physical:snapshots:write'
  | 'physical:audit:read'
  | 'physical:audit:report'
  | 'physical:approvals:read'
  | 'physical:approvals:decide'
  | 'physical:actors:read'
  | 'physical:actors:write'
  | 'physical:policy:read'
  | 'physical:policy:write';

export const ALL_PERMISSIONS: readonly Permission[] = [
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
];

const APPROVER: readonly Permission[] = [
  'authority:approve',
  'physical:approvals:read',
  'physical:approvals:decide',
  'intent:read',
  'audit:read',
];

export const ROLE_PERMISSIONS: Readonly<Record<string, readonly Permission[]>> = {
  owner: ALL_PERMISSIONS,
  admin: ALL_PERMISSIONS.filter((p) => p !== 'tenant:admin' && p !== 'authority:floor:write'),
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

export function permissionsOf(role: string): ReadonlySet<Permission> {
  return new Set(ROLE_PERMISSIONS[role] ?? []);
}
