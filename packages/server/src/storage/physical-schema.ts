/** Row types of the physical surface's tables (the conventions of schema.ts). */

/** The physical surface's RS256 keys, shared by every tenant; no tenant column by design. */
export interface PhysicalSigningKeysTable {
  kid: string;
  alg: string;
  bits: number;
  /** ACTIVE, PREVIOUS or RETIRED. */
  status: string;
  public_jwk: string;
  /** PKCS#8 PEM sealed under the master key. */
  private_key: string;
  created_at: number;
  rotated_at: number | null;
  retired_at: number | null;
}

export interface PhysicalActorsTable {
  tenant_id: string;
  id: string;
  actor_identity: string;
  actor_identity_kind: string;
  actor_kind: string;
  display_name: string | null;
  /** active or disabled. */
  status: string;
  /** JSON object, or null. */
  metadata: string | null;
  created_at: number;
  updated_at: number;
}

export interface PhysicalSnapshotsTable {
  tenant_id: string;
  /** The physicalStateRef (UUIDv7). */
  id: string;
  /** JSON: predicate name to PhysicalStateValue, attestation defaults filled in. */
  state: string;
  created_at: number;
}

export interface PhysicalDecisionsTable {
  tenant_id: string;
  /** UUIDv7 of the decision; the list's keyset. */
  id: string;
  /** The token id of an ALLOW; null for ESCALATE and DENY. */
  token_jti: string | null;
  decision: string;
  correlation_id: string;
  issued_at: number;
  expires_at: number | null;
  actor_identity: string;
  actor_kind: string;
  oi_code: string;
  /** JSON. */
  structured_goal: string;
  /** JSON. */
  dag_node: string;
  physical_state_ref: string | null;
  safety_bit: number;
  /** JSON array. */
  safety_citations: string;
  safe_default: string;
  clause_id: string | null;
  /** JSON array. */
  clause_ids: string;
  escalation_ticket_id: string | null;
  operator_ticket_id: string | null;
}

export interface PhysicalVerificationsTable {
  tenant_id: string;
  id: string;
  token_jti: string;
  edge_node_id: string;
  result: string;
  reason: string | null;
  /** Edge clock. */
  at_ms: number;
  reported_at: number;
  /** The reporting principal. */
  reported_by: string;
}

export interface PhysicalRevocationsTable {
  tenant_id: string;
  token_jti: string;
  /** Strictly increasing per tenant (unique). */
  revoked_at: number;
  reason: string;
  revoked_by: string;
}

export interface PhysicalTicketsTable {
  tenant_id: string;
  /** esc_ + UUIDv7. */
  id: string;
  /** pending, approved, rejected or consumed as stored; expired is computed on read. */
  status: string;
  oi_code: string;
  /** JSON. */
  structured_goal: string;
  correlation_id: string;
  /** The principal that decided (approve or reject). */
  approved_by: string | null;
  approved_at: number | null;
  /** The display name the deciding operator gave. */
  operator: string | null;
  rejection_reason: string | null;
  expires_at: number;
  created_at: number;
  consumed_at: number | null;
}

/** Uploaded physical policies, versioned per tenant (1, 2, …); at most one active per tenant. */
export interface PhysicalPoliciesTable {
  tenant_id: string;
  version: number;
  /** UUIDv7 of the upload (`id` of the upload's answer). */
  id: string;
  /** JSON: the validated document (known fields only). */
  document: string;
  /** 1 for the tenant's active version, else 0. */
  active: number;
  created_at: number;
  created_by: string;
  activated_at: number | null;
}

export interface PhysicalTables {
  physical_signing_keys: PhysicalSigningKeysTable;
  physical_actors: PhysicalActorsTable;
  physical_snapshots: PhysicalSnapshotsTable;
  physical_decisions: PhysicalDecisionsTable;
  physical_verifications: PhysicalVerificationsTable;
  physical_revocations: PhysicalRevocationsTable;
  physical_tickets: PhysicalTicketsTable;
  physical_policies: PhysicalPoliciesTable;
}
