/**
 * The one table of error codes. Each code has its HTTP status, a default message and the lower-snake
 * code used on the physical surface (`/v1/physical/*`), as contract section 1 maps them.
 */
export const ERROR_CODES = {
  VALIDATION_ERROR: { status: 400, physical: 'validation_error', message: 'The request failed validation' },
  INVALID_INTENT: { status: 400, physical: 'validation_error', message: 'The intent could not be parsed' },
  UNAUTHORIZED: { status: 401, physical: 'unauthenticated', message: 'Missing or invalid credential' },
  INVALID_API_KEY: { status: 401, physical: 'unauthenticated', message: 'Unrecognized API key prefix' },
  INVALID_PORTAL_SESSION: {
    status: 401,
    physical: 'unauthenticated',
    message: 'Idle, expired or unknown portal session',
  },
  TENANT_MISMATCH: {
    status: 403,
    physical: 'tenant_mismatch',
    message: 'The credential belongs to another tenant',
  },
  FORBIDDEN: { status: 403, physical: 'forbidden', message: 'The credential lacks the required permission' },
  IP_NOT_ALLOWED: {
    status: 403,
    physical: 'ip_not_allowed',
    message: "The client address is not on the tenant's allowlist",
  },
  MFA_REQUIRED: { status: 403, physical: 'mfa_required', message: 'A verified second factor is required' },
  ACTOR_NOT_REGISTERED: {
    status: 403,
    physical: 'actor_not_registered',
    message: "The actor is not on the tenant's roster",
  },
  NOT_FOUND: { status: 404, physical: 'not_found', message: 'The resource does not exist' },
  // A physical DENY (contract §9): 422, or 423 when an audit-gap clause decided; one wire code.
  POLICY_DENIED: { status: 422, physical: 'policy_denied', message: 'The policy denied the request' },
  POLICY_DENIED_AUDIT_GAP: {
    status: 423,
    physical: 'policy_denied',
    message: 'The policy denied the request: the audit trail has a gap',
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    physical: 'method_not_allowed',
    message: 'The path does not take this method',
  },
  CONFLICT: { status: 409, physical: 'conflict', message: 'The request conflicts with the current state' },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    physical: 'payload_too_large',
    message: 'The request body exceeds the limit of 1 MiB',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    physical: 'unsupported_media_type',
    message: 'Request bodies must be application/json',
  },
  RATE_LIMITED: { status: 429, physical: 'rate_limited', message: 'Rate limit exceeded' },
  INTERNAL_ERROR: { status: 500, physical: 'internal_error', message: 'An unexpected error occurred' },
  AUTHORITY_LOOP_FAILED: {
    status: 500,
    physical: 'internal_error',
    message: 'The authority loop failed; the action is not authorized',
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    physical: 'service_unavailable',
    message: 'The service is temporarily unavailable; the action is not authorized',
  },
} as const satisfies Record<string, { status: number; physical: string; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;
