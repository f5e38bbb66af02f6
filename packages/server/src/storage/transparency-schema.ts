/** Tables of the transparency log (contract §15): the Merkle tree, the log keys, the signed notes. */

export interface AuditTreeHashesTable {
  tenant_id: string;
  /** The subtree covers 2^level leaves, starting at leaf idx × 2^level. */
  level: number;
  idx: number;
  /** Lower-case hex of the subtree's RFC 9162 hash. */
  hash: string;
}

export interface LogKeysTable {
  tenant_id: string;
  /** The key's name: `<host>/audit/<tenantId>`, fixed at creation. */
  origin: string;
  /** Base64 of the 32-byte Ed25519 public key. */
  public_key: string;
  /** The 32-byte seed, sealed under the master key. */
  private_key: string;
  created_at: number;
}

export interface LogCheckpointsTable {
  tenant_id: string;
  tree_size: number;
  /** Lower-case hex of the root hash the note states. */
  root_hash: string;
  /** The signed note, exactly as signed. */
  note: string;
  created_at: number;
}

export interface TransparencyTables {
  audit_tree_hashes: AuditTreeHashesTable;
  log_keys: LogKeysTable;
  log_checkpoints: LogCheckpointsTable;
}
