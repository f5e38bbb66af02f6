import type { Generated } from 'kysely';
import type { PhysicalTables } from './physical-schema.js';
import type { TransparencyTables } from './transparency-schema.js';
import type { WitnessTables } from './witness-schema.js';

/**
 * Row types of the schema. Times are integer milliseconds since the epoch on both engines, JSON
 * values are stored as text, booleans as 0/1, so one code path serves SQLite and PostgreSQL.
 */
export interface TenantsTable {
  id: string;
  name: string;
  plan: string;
  rate_limit_per_minute: number | null;
  kill_switch_enabled: number;
  kill_switch_reason: string | null;
  kill_switch_changed_by: string | null;
  kill_switch_changed_at: number | null;
  ip_allowlist: string;
  created_at: number;
  updated_at: number;
}

export interface ApiKeysTable {
  tenant_id: string;
  id: string;
  name: string;
  key_hash: string;
  display_prefix: string;
  role: string;
  scopes: string | null;
  expires_at: number | null;
  created_at: number;
  created_by: string | null;
  revoked_at: number | null;
  last_used_at: number | null;
}

export interface BootstrapTable {
  name: string;
  created_at: number;
}

export interface Database extends DomainTables, PhysicalTables, TransparencyTables, WitnessTables {
  tenants: TenantsTable;
  api_keys: ApiKeysTable;
  bootstrap: BootstrapTable;
}

export interface SigningKeysTable {
  tenant_id: string;
  kid: string;
  alg: string;
  status: string;
  public_jwk: string;
  /** PKCS#8 PEM sealed under the master key; null for external (customer-managed) keys. */
  private_key: string | null;
  source: string;
  sign_url: string | null;
  /** JSON object of headers for the external signer, sealed under the master key. */
  sign_headers: string | null;
  created_at: number;
  rotated_at: number | null;
  retired_at: number | null;
}

export interface TenantSecretsTable {
  tenant_id: string;
  id: string;
  kind: string;
  secret: string;
  status: string;
  created_at: number;
}

export interface TokenNoncesTable {
  tenant_id: string;
  nonce: string;
  intent_id: string | null;
  adapter_id: string;
  consumed_at: number;
  expires_at: number;
}

export interface AuditHeadsTable {
  tenant_id: string;
  last_index: number;
  last_hash: string;
  last_checkpoint_index: number;
  last_checkpoint_at: number;
  /** Leaves in the Merkle tree (equals last_index + 1 once the tree caught up with the chain). */
  tree_size: Generated<number>;
  /** The tree's right edge: the hex hashes of its largest complete subtrees, concatenated. */
  tree_frontier: Generated<string>;
}

export interface AuditEntriesTable {
  tenant_id: string;
  idx: number;
  correlation_id: string | null;
  intent_id: string | null;
  actor_id: string;
  actor_type: string;
  event_type: string;
  target_system: string | null;
  previous_hash: string;
  entry_hash: string;
  /** The exact canonical (RFC 8785) text that was hashed; verification hashes it as stored. */
  canonical: string;
  created_at: number;
}

export interface AuditCheckpointsTable {
  tenant_id: string;
  idx: number;
  entry_hash: string;
  issued_at: number;
  kid: string;
  signature: string;
}

export interface ChainBreaksTable {
  tenant_id: string;
  broken_at: number;
  reason: string;
  detected_at: number;
  acknowledged_at: number | null;
  acknowledged_by: string | null;
  note: string | null;
}

export interface IntentsTable {
  tenant_id: string;
  id: string;
  correlation_id: string;
  /** The API key (or portal user) that submitted the intent. */
  principal_id: string;
  actor_id: string;
  target_system: string;
  /** APPROVED | ESCALATED | DENIED | APPROVED_AFTER_REVIEW | DENIED_AFTER_REVIEW | EXPIRED */
  status: string;
  /** The decision the loop rendered: APPROVED | ESCALATED | DENIED. */
  decision: string;
  /** PENDING while an escalation awaits a human; DECIDED otherwise. */
  review_state: string;
  /** JSON: the full request (args included; retention may delete it). */
  request: string;
  /** JSON: the authorityDecision object of the response. */
  authority_decision: string;
  hypotheses: string;
  execution: string;
  token: string | null;
  escalation_id: string | null;
  /** JSON: {queue, status, requiredApprovals, approvalsReceived?, expiresAt} of an escalation. */
  approval: string | null;
  /** The escalation's queue and expiry, copied from `approval` for filtering. */
  approval_queue: string | null;
  approval_expires_at: number | null;
  created_at: number;
  updated_at: number;
}

/** One human decision on an escalated intent (contract §4.8). */
export interface IntentApprovalsTable {
  tenant_id: string;
  id: string;
  intent_id: string;
  escalation_id: string;
  /** approve | deny */
  decision: string;
  /** The authenticated principal that decided. */
  principal_id: string;
  /** JSON: the display identity of the body, `{id?, name?}`. */
  approver: string;
  rationale: string;
  decided_at: number;
}

export interface PolicyVersionsTable {
  tenant_id: string;
  version: number;
  /** JSON array of rules (pack rules included, with <pack>/ ids). */
  rules: string;
  /** JSON array of installed pack ids. */
  packs: string;
  created_at: number;
  created_by: string;
  activated_at: number | null;
  /** Approvals the version needs when it was created under review (§16); null otherwise. */
  review_approvals: number | null;
}

/** Whether a tenant's intent policy versions need review before activation (§16). */
export interface PolicyReviewSettingsTable {
  tenant_id: string;
  required: number;
  approvals: number;
  updated_at: number;
  updated_by: string;
}

/** One review of a policy version; a principal reviews a version once. */
export interface PolicyReviewsTable {
  tenant_id: string;
  version: number;
  principal_id: string;
  /** approve | reject */
  decision: string;
  comment: string;
  created_at: number;
}

export interface IdempotencyKeysTable {
  tenant_id: string;
  scope: string;
  key: string;
  request_hash: string;
  status_code: number | null;
  response: string | null;
  created_at: number;
  expires_at: number;
}

export interface TenantSettingsTable {
  tenant_id: string;
  floor_enabled: number;
  floor_agreement_version: string | null;
  floor_changed_by: string | null;
  floor_changed_at: number | null;
  /** JSON of the thresholds settings; null means the defaults. */
  thresholds: string | null;
  thresholds_updated_at: number | null;
  thresholds_updated_by: string | null;
  active_policy_version: number | null;
}

export interface AuthorityActorsTable {
  tenant_id: string;
  actor_id: string;
  status: string;
  reason: string | null;
  updated_at: number;
  updated_by: string;
}

export interface WebhookEndpointsTable {
  tenant_id: string;
  id: string;
  url: string;
  /** JSON array of event types, or ["*"]. */
  events: string;
  description: string | null;
  /** active | disabled */
  status: string;
  /** The `whsec_` secret, sealed under the master key. */
  secret: string;
  disabled_reason: string | null;
  created_at: number;
  updated_at: number;
}

export interface WebhookDeliveriesTable {
  tenant_id: string;
  id: string;
  endpoint_id: string;
  event_id: string;
  event: string;
  /** JSON of the payload without sentAt and signature (added per attempt). */
  payload: string;
  /** pending | retrying | succeeded | dead */
  status: string;
  attempts: number;
  next_attempt_at: number | null;
  last_status_code: number | null;
  last_error: string | null;
  /** The claim of the worker sending it; the outcome is recorded only under the same token. */
  lease_token: string | null;
  lease_until: number | null;
  created_at: number;
  updated_at: number;
}

/** A connector of contract §8: one per tenant and target system. */
export interface ConnectorsTable {
  tenant_id: string;
  id: string;
  /** http | github | noop */
  type: string;
  name: string;
  target_system: string;
  auto_execute: number;
  /** JSON of the settings the API shows (URLs); never a secret. */
  config: string;
  /** JSON of the secrets (GitHub token, http headers), sealed under the master key; null for noop. */
  secrets: string | null;
  /** healthy | degraded | down | unknown */
  status: string;
  last_checked_at: number | null;
  latency_ms: number | null;
  last_error: string | null;
  /** When the background health check is next due; claimed by moving it forward. */
  next_check_at: number;
  created_at: number;
  updated_at: number;
}

export interface PortalUsersTable {
  tenant_id: string;
  id: string;
  /** Lower-cased; unique per tenant. */
  email: string;
  /** scrypt, with its parameters and salt (portal/password-hash.ts). */
  password_hash: string;
  role: string;
  /** The enrolled TOTP secret, sealed under the master key; null until enrollment is confirmed. */
  totp_secret: string | null;
  /** A TOTP secret handed out by POST /portal/mfa/enroll and not yet confirmed by a code. */
  totp_pending_secret: string | null;
  /** The last TOTP time step accepted, so that a code is accepted once. */
  last_totp_step: number | null;
  /** Wrong second-factor codes in a row, over every session of the user. */
  mfa_failures: Generated<number>;
  /** Until when the second factor refuses every code (too many wrong ones in a row); null when not locked. */
  mfa_locked_until: number | null;
  created_at: number;
  updated_at: number;
}

export interface PortalSessionsTable {
  tenant_id: string;
  /** SHA-256 hex of the session id; the id itself is shown once, at login. */
  session_hash: string;
  user_id: string;
  created_at: number;
  last_seen_at: number;
  mfa_verified: number;
  mfa_failures: number;
}

/** A tenant's budget list (contract §16), as JSON. */
export interface BudgetSetsTable {
  tenant_id: string;
  budgets: string;
  updated_at: number;
  updated_by: string;
}

/** APPROVED decisions of an actor under a budget in one fixed UTC window (contract §16). */
export interface BudgetCountersTable {
  tenant_id: string;
  actor_id: string;
  budget_id: string;
  window_start: number;
  approved: number;
}

export interface DomainTables {
  budget_sets: BudgetSetsTable;
  budget_counters: BudgetCountersTable;
  tenant_settings: TenantSettingsTable;
  authority_actors: AuthorityActorsTable;
  signing_keys: SigningKeysTable;
  tenant_secrets: TenantSecretsTable;
  token_nonces: TokenNoncesTable;
  audit_heads: AuditHeadsTable;
  audit_entries: AuditEntriesTable;
  audit_checkpoints: AuditCheckpointsTable;
  chain_breaks: ChainBreaksTable;
  intents: IntentsTable;
  intent_approvals: IntentApprovalsTable;
  policy_versions: PolicyVersionsTable;
  policy_review_settings: PolicyReviewSettingsTable;
  policy_reviews: PolicyReviewsTable;
  idempotency_keys: IdempotencyKeysTable;
  portal_users: PortalUsersTable;
  portal_sessions: PortalSessionsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  connectors: ConnectorsTable;
}
