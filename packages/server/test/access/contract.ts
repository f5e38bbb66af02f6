/**
 * Contract section 2, copied by hand (not imported from the code) so that a drift between the code
 * and the contract fails the access tests.
 */

export const CONTRACT_PERMISSIONS = [
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

const APPROVER = [
  'authority:approve',
  'physical:approvals:read',
  'physical:approvals:decide',
  'intent:read',
  'audit:read',
] as const;

export const CONTRACT_ROLES: Readonly<Record<string, readonly string[]>> = {
  owner: CONTRACT_PERMISSIONS,
  admin: CONTRACT_PERMISSIONS.filter((p) => p !== 'tenant:admin' && p !== 'authority:floor:write'),
  policy_admin: [
    'authority:policy:read',
    'authority:policy:write',
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

/** Roles whose portal sessions need a verified second factor. */
export const CONTRACT_PRIVILEGED_ROLES = ['owner', 'admin', 'policy_admin', 'senior_approver', 'approver'];

/**
 * Route → access from the contract's list: `public` (no credential, no tenant header), `admin`
 * (`x-admin-token`), `portal` (a portal session, before its second factor: `/portal/*`), `any` (any
 * valid credential) or the permission. A route the service registers must be here; routes the
 * contract names that are not built yet are listed too, so their access is fixed before they are.
 */
export const CONTRACT_ROUTE_ACCESS: Readonly<Record<string, string>> = {
  'GET /health': 'public',
  'GET /ready': 'public',
  'GET /metrics': 'public',
  'GET /openapi.json': 'public',
  'GET /docs': 'public',
  'GET /.well-known/authority/:tenantId/jwks.json': 'public',
  'GET /.well-known/authority/:tenantId/jwks-archive.json': 'public',
  'POST /portal/login': 'public',
  'GET /console': 'public',
  'GET /console/*': 'public',

  'POST /portal/mfa': 'portal',
  'POST /portal/mfa/enroll': 'portal',
  'POST /portal/logout': 'portal',

  'POST /admin/tenants': 'admin',
  'PATCH /admin/tenants/:id': 'admin',

  'GET /tenant': 'any',
  'PUT /tenant/ip-allowlist': 'tenant:admin',

  'POST /keys': 'keys:manage',
  'GET /keys': 'keys:manage',
  'DELETE /keys/:id': 'keys:manage',

  'POST /intent': 'intent:create',
  'POST /intent/:id/token': 'intent:create',
  'GET /intent/:id': 'intent:read',
  'GET /intents': 'intent:read',
  'GET /intent/:id/evidence-bundle': 'intent:read',
  'GET /intent/:id/receipt': 'intent:read',
  'POST /authority/tokens/consume': 'intent:token:consume',

  'GET /authority/thresholds/:tenantId': 'authority:policy:read',
  'PUT /authority/thresholds/:tenantId': 'authority:thresholds:write',
  'GET /authority/policy': 'authority:policy:read',
  'GET /authority/policy/versions': 'authority:policy:read',
  'POST /authority/policy': 'authority:policy:write',
  'POST /authority/policy/versions/:version/activate': 'authority:policy:write',
  'GET /policy-packs': 'authority:policy:read',
  'GET /policy-packs/installed': 'authority:policy:read',
  'POST /policy-packs/install': 'authority:policy:write',
  'GET /authority/actors': 'authority:policy:read',
  'PUT /authority/actors/:actorId': 'authority:policy:write',
  'PUT /authority/floor/:tenantId': 'authority:floor:write',
  'PUT /authority/kill-switch/:tenantId': 'authority:killswitch:write',

  'GET /authority/keys': 'authority:keys:read',
  'POST /authority/keys/rotate': 'authority:keys:write',
  'PUT /authority/keys/algorithm': 'authority:keys:write',
  'POST /authority/keys/external': 'authority:keys:write',
  'POST /authority/secrets/evidence/rotate': 'tenant:admin',
  'POST /authority/secrets/permission/rotate': 'tenant:admin',

  'POST /authority/approval': 'authority:approve',
  'GET /authority/approvals': 'authority:approve',
  'GET /authority/approvals/:escalationId': 'authority:approve',
  'POST /authority/evaluate': 'authority:evaluate',
  'POST /authority/permission-tokens/verify': 'authority:evaluate',

  'GET /audit/:tenantId/timeline': 'audit:read',
  'GET /audit/:tenantId/export': 'audit:read',
  'GET /audit/:tenantId/checkpoints': 'audit:read',
  'POST /audit/verify-chain': 'audit:verify',
  'POST /audit/acknowledge-break': 'tenant:admin',
  'PUT /audit/witnesses': 'tenant:admin',

  'POST /webhooks': 'webhooks:manage',
  'GET /webhooks': 'webhooks:manage',
  'GET /webhooks/:id': 'webhooks:manage',
  'PATCH /webhooks/:id': 'webhooks:manage',
  'DELETE /webhooks/:id': 'webhooks:manage',
  'GET /webhooks/:id/deliveries': 'webhooks:manage',
  'POST /webhooks/:id/deliveries/:deliveryId/redeliver': 'webhooks:manage',
  'POST /webhooks/:id/rotate-secret': 'webhooks:manage',

  'GET /connectors': 'connectors:read',
  'POST /connectors': 'connectors:write',
  'DELETE /connectors/:id': 'connectors:write',
  'POST /connectors/:id/test': 'connectors:test',

  'GET /.well-known/jwks.json': 'public',
  'POST /physical/classify': 'physical:classify',
  'POST /physical/authority-tokens': 'physical:token:issue',
  'POST /physical/authority-tokens/:jti/revoke': 'physical:token:revoke',
  'GET /physical/revocations': 'physical:revocations:read',
  'POST /physical/snapshots': 'physical:snapshots:write',
  'GET /physical/audit': 'physical:audit:read',
  'GET /physical/audit/:jti': 'physical:audit:read',
  'POST /physical/audit/:jti/verifications': 'physical:audit:report',
  'POST /physical/verifications': 'physical:audit:report',
  'GET /physical/approvals': 'physical:approvals:read',
  'GET /physical/approvals/:ticketId': 'physical:approvals:read',
  'POST /physical/approvals/:ticketId/decide': 'physical:approvals:decide',
  'POST /physical/actors': 'physical:actors:write',
  'GET /physical/actors': 'physical:actors:read',
  'GET /physical/policy': 'physical:policy:read',
  'POST /physical/policy': 'physical:policy:write',
};
