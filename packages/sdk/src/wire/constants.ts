/**
 * The wire vocabulary of both surfaces (contract documents 01, 02 and 03): issuer and audience
 * strings, headers, error codes and every closed enumeration a request or an answer can carry.
 * Plain constants with no dependency, so the client and the verifiers use them without loading the
 * schema library; the schemas of `./schemas` are built from them.
 */

/** The issuer every Authority Decision Token carries (`iss`) on the intent surface. */
export const AUTHORITY_ISSUER = 'service-authority';

/** The audience every physical authority token carries (`aud`). */
export const EDGE_VERIFIER_AUDIENCE = 'service-edge-verifier';

/** The header naming the tenant of every tenant route. */
export const TENANT_HEADER = 'x-tenant-id';

/** The request id every answer carries (and that the caller may set). */
export const REQUEST_ID_HEADER = 'x-request-id';

/** The header that makes `POST /intent`, `POST /intent/:id/token` and the physical POSTs safe to retry. */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** An `Idempotency-Key`: 1 to 255 visible ASCII characters (contract §4.1, §9). */
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x21-\\x7e]{1,255}$';

/** `<github_owner>/<github_repo>`: the `targetSystem` of the intent surface (contract §4.1). */
export const TARGET_SYSTEM_PATTERN = '^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$';
export const GITHUB_OWNER_PATTERN = '^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$';
export const GITHUB_REPO_PATTERN = '^[A-Za-z0-9._-]{1,100}$';

/** Tenant ids are slugs (contract §2). */
export const TENANT_ID_PATTERN = '^[a-z0-9][a-z0-9-]{1,62}$';

/** An open-intent code, `OI-NNN` or `OI-NNNN`. */
export const OI_CODE_PATTERN = '^OI-[0-9]{3,4}$';

/**
 * Error codes of the intent surface (upper case) with their HTTP status (contract §1). A DENIED
 * decision is not among them: it is a 403 with the intent response body.
 */
export const INTENT_ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  INVALID_INTENT: 400,
  UNAUTHORIZED: 401,
  INVALID_API_KEY: 401,
  INVALID_PORTAL_SESSION: 401,
  TENANT_MISMATCH: 403,
  FORBIDDEN: 403,
  IP_NOT_ALLOWED: 403,
  MFA_REQUIRED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  AUTHORITY_LOOP_FAILED: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

/** One error code of the intent surface. */
export type IntentErrorCode = keyof typeof INTENT_ERROR_STATUS;

/** The intent surface's error codes. */
export const INTENT_ERROR_CODES = Object.keys(INTENT_ERROR_STATUS) as IntentErrorCode[];

/**
 * Error codes of the physical surface (`/v1/physical/*`, lower snake case) with their HTTP status.
 * `policy_denied` is a DENY decision: 422, or 423 when an audit-gap clause decided.
 */
export const PHYSICAL_ERROR_STATUS = {
  validation_error: [400],
  unauthenticated: [401],
  tenant_mismatch: [403],
  forbidden: [403],
  ip_not_allowed: [403],
  mfa_required: [403],
  actor_not_registered: [403],
  not_found: [404],
  method_not_allowed: [405],
  conflict: [409],
  payload_too_large: [413],
  unsupported_media_type: [415],
  policy_denied: [422, 423],
  rate_limited: [429],
  internal_error: [500],
  service_unavailable: [503],
} as const;

/** One error code of the physical surface. */
export type PhysicalErrorCode = keyof typeof PHYSICAL_ERROR_STATUS;

/** The physical surface's error codes. */
export const PHYSICAL_ERROR_CODES = Object.keys(PHYSICAL_ERROR_STATUS) as PhysicalErrorCode[];

/** `details.reason` of a 401 on the physical surface (contract §1), as far as the contract names them. */
export const UNAUTHENTICATED_REASONS = [
  'missing_credential',
  'invalid_api_key',
  'tenant_header_missing',
] as const;

// ---- intent surface ----

export const ACTOR_TYPES = ['service', 'agent', 'human', 'workflow'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

/** The decision of a submitted intent, and the HTTP status it answers with. */
export const INTENT_OUTCOME_STATUS = { APPROVED: 200, ESCALATED: 202, DENIED: 403 } as const;
export type IntentOutcome = keyof typeof INTENT_OUTCOME_STATUS;
export const INTENT_OUTCOMES = Object.keys(INTENT_OUTCOME_STATUS) as IntentOutcome[];

/** Where an intent stands (contract §4.7). */
export const INTENT_STATUSES = [
  'APPROVED',
  'ESCALATED',
  'DENIED',
  'APPROVED_AFTER_REVIEW',
  'DENIED_AFTER_REVIEW',
  'EXPIRED',
] as const;
export type IntentStatus = (typeof INTENT_STATUSES)[number];

/** The gates of contract §4.6, in evaluation order. */
export const GATES = ['kill_switch', 'rbac', 'structural', 'authority_rules', 'default'] as const;
export type Gate = (typeof GATES)[number];

export const EFFECTS = ['ALLOW', 'DENY', 'REQUIRE_APPROVAL', 'ESCALATE'] as const;
export type Effect = (typeof EFFECTS)[number];

export const OPERATORS = [
  'EQ',
  'NEQ',
  'IN',
  'NOT_IN',
  'GT',
  'GTE',
  'LT',
  'LTE',
  'MATCHES',
  'CONTAINS',
  'EXISTS',
] as const;
export type Operator = (typeof OPERATORS)[number];

export const OPERATION_TYPES = ['read', 'write'] as const;
export type OperationType = (typeof OPERATION_TYPES)[number];

export const APPROVAL_QUEUES = ['standard', 'catastrophic-review'] as const;
export type ApprovalQueue = (typeof APPROVAL_QUEUES)[number];

export const APPROVAL_STATUSES = ['pending', 'approved', 'denied', 'expired'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** Why an adapter that accepted the token did not complete (docs/connectors.md). */
export const EXECUTION_FAILURE_REASONS = [
  'TIMEOUT',
  'EGRESS_REFUSED',
  'UNREACHABLE',
  'HTTP_ERROR',
  'INVALID_ARGS',
  'ADAPTER_ERROR',
] as const;
export type ExecutionFailureReason = (typeof EXECUTION_FAILURE_REASONS)[number];

/** The `adapterId` of a token minted for a target no connector serves (contract §5). */
export const EXTERNAL_ADAPTER_ID = 'external';

export const PERMISSION_TOKEN_DECISIONS = ['allow', 'review', 'deny'] as const;

export const CHAIN_BREAK_REASONS = [
  'ENTRY_HASH_MISMATCH',
  'PREVIOUS_HASH_MISMATCH',
  'INDEX_GAP',
  'CHECKPOINT_MISMATCH',
] as const;

// ---- tenancy, keys, webhooks, connectors ----

export const PLANS = ['free', 'pro', 'business', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

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
type RoleName = (typeof ROLES)[number];

/** The closed list of permissions (contract §2). */
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
type PermissionName = (typeof PERMISSIONS)[number];

const APPROVER: readonly PermissionName[] = [
  'authority:approve',
  'physical:approvals:read',
  'physical:approvals:decide',
  'intent:read',
  'audit:read',
];

/** Roles and their permissions, as data (contract §2). */
export const ROLE_PERMISSIONS: Readonly<Record<RoleName, readonly PermissionName[]>> = {
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

/** Roles that need a verified second factor in a portal session (contract §2). */
export const PRIVILEGED_ROLES: readonly RoleName[] = [
  'owner',
  'admin',
  'policy_admin',
  'senior_approver',
  'approver',
];

export const SIGNING_ALGS = ['EdDSA', 'RS256', 'ES256'] as const;
export type SigningAlg = (typeof SIGNING_ALGS)[number];

export const KEY_STATUSES = ['ACTIVE', 'PREVIOUS', 'RETIRED'] as const;
export const KEY_SOURCES = ['local', 'external'] as const;
export const SECRET_KINDS = ['evidence', 'permission'] as const;
export type SecretKind = (typeof SECRET_KINDS)[number];

export const WEBHOOK_EVENTS = [
  'decision.completed',
  'decision.escalated',
  'decision.approved',
  'decision.denied',
  'chain.break',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
/** `["*"]` subscribes an endpoint to every event, including kinds added later. */
export const ALL_WEBHOOK_EVENTS = '*';

export const WEBHOOK_ENDPOINT_STATUSES = ['active', 'disabled'] as const;
export const DELIVERY_STATUSES = ['pending', 'retrying', 'succeeded', 'dead'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const CONNECTOR_TYPES = ['http', 'github', 'noop'] as const;
export type ConnectorType = (typeof CONNECTOR_TYPES)[number];
export const CONNECTOR_HEALTH_STATUSES = ['healthy', 'degraded', 'down', 'unknown'] as const;

export const AUTHORITY_ACTOR_STATUSES = ['active', 'blocked'] as const;

// ---- physical surface ----

export const ACTOR_KINDS = ['robot', 'drone', 'vehicle', 'cobot', 'agv', 'amr', 'rov', 'other'] as const;
export type ActorKind = (typeof ACTOR_KINDS)[number];

/** The safe-default actions of the physical surface. */
export const SAFE_DEFAULTS = [
  'stop',
  'hold-position',
  'request-operator',
  'transition-safe-state',
  'abort-mission',
  'ignore',
] as const;

/** One of {@link SAFE_DEFAULTS}. */
export type SafeDefault = (typeof SAFE_DEFAULTS)[number];

/** The real-time tiers of a DAG node. */
export const REAL_TIME_TIERS = ['best-effort', 'rt-soft', 'rt-hard'] as const;

/** One of {@link REAL_TIME_TIERS}. */
export type RealTimeTier = (typeof REAL_TIME_TIERS)[number];

export const ATTESTATION_PROTOCOLS = [
  'fsoe',
  'profisafe',
  'vendor-pss',
  'opc-ua-safety',
  'ros2-quality-of-service',
  'trusted-bus',
  'untrusted',
] as const;

export const PHYSICAL_OUTCOMES = ['ALLOW', 'ESCALATE', 'DENY'] as const;
export type PhysicalOutcome = (typeof PHYSICAL_OUTCOMES)[number];

export const TICKET_STATUSES = ['pending', 'approved', 'rejected', 'expired', 'consumed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

export const PHYSICAL_ACTOR_STATUSES = ['active', 'disabled'] as const;

export const CLAUSE_EFFECTS = ['allow', 'escalate', 'deny', 'audit-gap'] as const;
export const CLAUSE_OPERATORS = ['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'in', 'present', 'absent'] as const;

export const VERIFICATION_RESULTS = ['accepted', 'rejected'] as const;

/** Most reports one `POST /v1/physical/verifications` takes. */
export const MAX_VERIFICATION_REPORTS = 500;
