export {
  CHECKPOINT_VERIFICATION_REASONS,
  type Checkpoint,
  type CheckpointVerification,
  type CheckpointVerificationReason,
  formatCheckpoint,
  parseCheckpoint,
  type VerifiedCosignature,
  type VerifyCheckpointOptions,
  verifyCheckpoint,
} from './checkpoint.js';
export {
  COSIGNATURE_V1_SIZE,
  cosignatureMessage,
  cosignatureTime,
  cosignatureVerifier,
  cosigner,
} from './cosignature.js';
export { type Ed25519SigningKey, ed25519NoteSigner, ed25519NoteVerifier } from './ed25519-note-keys.js';
export { HASH_SIZE, hashFromBase64, hashFromHex, hashToBase64, hashToHex } from './encoding.js';
export {
  TRANSPARENCY_FORMAT_ERRORS,
  TransparencyFormatError,
  type TransparencyFormatErrorCode,
} from './errors.js';
export { emptyTreeHash, leafHash, nodeHash } from './merkle-hash.js';
export {
  type ConsistencyProofInput,
  type InclusionProofInput,
  PROOF_FAILURE_REASONS,
  type ProofFailureReason,
  type ProofVerification,
  verifyConsistencyProof,
  verifyInclusionProof,
} from './merkle-verify.js';
export {
  formatSignatureLine,
  formatSignedNote,
  MAX_NOTE_SIGNATURES,
  NOTE_VERIFICATION_REASONS,
  type NoteSignature,
  type NoteSigner,
  type NoteVerification,
  type NoteVerificationReason,
  type NoteVerifier,
  parseSignedNote,
  type SignedNote,
  signNote,
  verifySignedNote,
} from './note.js';
export {
  COSIGNATURE_V1_KEY_TYPE,
  ED25519_KEY_TYPE,
  formatKeyId,
  formatSignerKey,
  formatVerifierKey,
  generateSignerKey,
  isValidKeyName,
  type NoteKeyType,
  noteKeyId,
  parseSignerKey,
  parseVerifierKey,
  type SignerKey,
  type VerifierKey,
} from './note-keys.js';
export {
  type AppendResult,
  appendLeaves,
  EMPTY_FRONTIER,
  planFrontier,
  type StoredHash,
  type TreeFrontier,
  treeHashOfLeaves,
} from './tree-append.js';
export {
  type HashPlan,
  planConsistencyProof,
  planInclusionProof,
  planTreeHash,
  type SubtreeAddress,
} from './tree-plans.js';
export {
  type AddCheckpointDecision,
  checkAddCheckpoint,
  type WitnessRecord,
  type WitnessState,
} from './witness-check.js';
export {
  type AddCheckpointRequest,
  type AddCheckpointResponse,
  formatAddCheckpointRequest,
  MAX_CONSISTENCY_PROOF_LINES,
  parseAddCheckpointRequest,
  parseAddCheckpointResponse,
  TLOG_SIZE_CONTENT_TYPE,
} from './witness-protocol.js';
