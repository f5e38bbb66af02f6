/** The tables of the transparency log's witnesses (migration 0016, contract §15). */

/** A tenant's witness set: the quorum a verifier should require. */
export interface AuditWitnessSetsTable {
  tenant_id: string;
  quorum: number;
  updated_at: number;
}

/** One witness of a tenant's log, with the state of the pushes to it. */
export interface AuditWitnessesTable {
  tenant_id: string;
  name: string;
  /** Order of the witness in the configuration. */
  position: number;
  url: string;
  verifier_key: string;
  /** The tree size the witness last cosigned (0: none). */
  cosigned_size: number;
  /** The root hash (hex) of that tree size, null when none. */
  cosigned_root: string | null;
  /** Failed pushes since the last success. */
  attempts: number;
  /** When the next push may be tried (backoff after failures). */
  next_attempt_at: number;
  last_error: string | null;
  updated_at: number;
}

/** A witness's cosignature line of the checkpoint of one tree size. */
export interface AuditWitnessCosignaturesTable {
  tenant_id: string;
  tree_size: number;
  witness_name: string;
  root_hash: string;
  signature_line: string;
  cosigned_at: number;
}

export interface WitnessTables {
  audit_witness_sets: AuditWitnessSetsTable;
  audit_witnesses: AuditWitnessesTable;
  audit_witness_cosignatures: AuditWitnessCosignaturesTable;
}
