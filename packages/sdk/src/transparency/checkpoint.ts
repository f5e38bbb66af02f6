import { cosignatureTime, cosignatureVerifier } from './cosignature.js';
import { ed25519NoteVerifier } from './ed25519-note-keys.js';
import { hasControlCharacter, hashFromBase64, hashToBase64, parseDecimal } from './encoding.js';
import { TransparencyFormatError } from './errors.js';
import { type NoteSignature, type SignedNote, verifySignedNote } from './note.js';
import type { VerifierKey } from './note-keys.js';

/** A tree head as a `tlog-checkpoint` states it. */
export interface Checkpoint {
  /** The log's identity; for a tenant's audit log `<host>/audit/<tenantId>`, its log key's name. */
  readonly origin: string;
  /** The number of leaves: the chain length. */
  readonly size: number;
  /** The RFC 9162 root hash of the tree of `size` leaves. */
  readonly rootHash: Uint8Array;
  /** Lines after the root hash, opaque; logs of this service never write any. */
  readonly extensions: readonly string[];
}

function malformed(message: string): TransparencyFormatError {
  return new TransparencyFormatError('CHECKPOINT_MALFORMED', message);
}

/**
 * The checkpoint body (the note text): origin, size in decimal and root hash in standard base64,
 * each line ending in a newline.
 *
 * @example
 * ```ts
 * import { formatCheckpoint } from '@authority-runtime/sdk';
 *
 * formatCheckpoint({ origin: 'audit.example.com/audit/acme', size: 3, rootHash });
 * // 'audit.example.com/audit/acme\n3\nq2Zk…=\n'
 * ```
 */
export function formatCheckpoint(checkpoint: Pick<Checkpoint, 'origin' | 'size' | 'rootHash'>): string {
  const { origin, size, rootHash } = checkpoint;
  if (typeof origin !== 'string' || origin === '' || hasControlCharacter(origin, false)) {
    throw malformed('an origin is a non-empty line without control characters');
  }
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError('a tree size is a non-negative integer');
  return `${origin}\n${size}\n${hashToBase64(rootHash)}\n`;
}

/**
 * Parses a checkpoint body (the text of a checkpoint note); throws {@link TransparencyFormatError}
 * (`CHECKPOINT_MALFORMED`) unless it is at least three non-empty lines each ending in a newline:
 * origin, size (decimal, no leading zero, at most 2^53 - 1), root hash (base64 of 32 bytes), then
 * optional non-empty extension lines.
 *
 * @example
 * ```ts
 * import { parseCheckpoint, parseSignedNote } from '@authority-runtime/sdk';
 *
 * const { origin, size, rootHash } = parseCheckpoint(parseSignedNote(text).text);
 * ```
 */
export function parseCheckpoint(body: string): Checkpoint {
  if (typeof body !== 'string' || !body.endsWith('\n'))
    throw malformed('a checkpoint body ends in a newline');
  const lines = body.slice(0, -1).split('\n');
  if (lines.length < 3) throw malformed('a checkpoint body has an origin, a size and a root hash');
  if (lines.some((line) => line === '')) throw malformed('a checkpoint body has no empty line');
  const [origin = '', size = '', root = '', ...extensions] = lines;
  let rootHash: Uint8Array;
  try {
    rootHash = hashFromBase64(root);
  } catch (error) {
    throw malformed(`the root hash: ${(error as Error).message}`);
  }
  return { origin, size: parseDecimal(size, 'CHECKPOINT_MALFORMED', 'the tree size'), rootHash, extensions };
}

/** Options of {@link verifyCheckpoint}. */
export interface VerifyCheckpointOptions {
  /** The pinned log key (type 0x01), text or parsed: its name must be the checkpoint's origin. */
  logKey: string | VerifierKey;
  /** Witness keys (type 0x04) whose cosignatures count. */
  witnesses?: readonly (string | VerifierKey)[];
  /** How many of `witnesses` must have cosigned (default 0). */
  quorum?: number;
}

/** A witness's verified cosignature. */
export interface VerifiedCosignature {
  readonly name: string;
  readonly keyId: number;
  /** Unix seconds at which the witness cosigned. */
  readonly time: number;
}

/**
 * Why {@link verifyCheckpoint} refused a note: the reasons of {@link verifySignedNote} (with
 * `NO_TRUSTED_SIGNATURE` when no pinned key signed at all), then:
 *
 * - `LOG_SIGNATURE_MISSING`: witnesses cosigned, but the log key did not sign.
 * - `CHECKPOINT_MALFORMED`: the note text is not a checkpoint body.
 * - `ORIGIN_MISMATCH`: the origin is not the log key's name (another log's checkpoint).
 * - `QUORUM_NOT_MET`: fewer verified witness cosignatures than `quorum`.
 */
export const CHECKPOINT_VERIFICATION_REASONS = [
  'NOTE_MALFORMED',
  'SIGNATURE_INVALID',
  'NO_TRUSTED_SIGNATURE',
  'LOG_SIGNATURE_MISSING',
  'CHECKPOINT_MALFORMED',
  'ORIGIN_MISMATCH',
  'QUORUM_NOT_MET',
] as const;

/** One of {@link CHECKPOINT_VERIFICATION_REASONS}. */
export type CheckpointVerificationReason = (typeof CHECKPOINT_VERIFICATION_REASONS)[number];

/** The outcome of {@link verifyCheckpoint}. */
export type CheckpointVerification =
  | {
      valid: true;
      checkpoint: Checkpoint;
      note: SignedNote;
      /** The pinned witnesses that cosigned, each once. */
      cosignatures: VerifiedCosignature[];
    }
  | { valid: false; reason: CheckpointVerificationReason; detail: string };

/**
 * Verifies a checkpoint note against a pinned log key and, optionally, a quorum of pinned witness
 * keys. Never throws on bad input; a malformed pinned key throws {@link TransparencyFormatError}.
 *
 * @example
 * ```ts
 * import { verifyCheckpoint } from '@authority-runtime/sdk';
 *
 * const outcome = verifyCheckpoint(noteText, { logKey, witnesses: [w1, w2], quorum: 1 });
 * if (outcome.valid) console.log(outcome.checkpoint.size);
 * ```
 */
export function verifyCheckpoint(
  note: string | Uint8Array,
  options: VerifyCheckpointOptions,
): CheckpointVerification {
  const log = ed25519NoteVerifier(options.logKey);
  const witnesses = (options.witnesses ?? []).map((key) => cosignatureVerifier(key));
  const outcome = verifySignedNote(note, [log, ...witnesses]);
  if (!outcome.valid) return outcome;
  const isLog = (s: NoteSignature) => s.name === log.name && s.keyId === log.keyId;
  if (!outcome.verified.some(isLog)) {
    return {
      valid: false,
      reason: 'LOG_SIGNATURE_MISSING',
      detail: `${log.name} did not sign this checkpoint`,
    };
  }
  let checkpoint: Checkpoint;
  try {
    checkpoint = parseCheckpoint(outcome.note.text);
  } catch (error) {
    return { valid: false, reason: 'CHECKPOINT_MALFORMED', detail: (error as Error).message };
  }
  if (checkpoint.origin !== log.name) {
    return {
      valid: false,
      reason: 'ORIGIN_MISMATCH',
      detail: `origin ${checkpoint.origin} is not ${log.name}`,
    };
  }
  const cosignatures = outcome.verified
    .filter((s) => !isLog(s))
    .map((s) => ({ name: s.name, keyId: s.keyId, time: cosignatureTime(s) }));
  const quorum = options.quorum ?? 0;
  if (cosignatures.length < quorum) {
    return {
      valid: false,
      reason: 'QUORUM_NOT_MET',
      detail: `${cosignatures.length} of the ${quorum} witness cosignatures required`,
    };
  }
  return { valid: true, checkpoint, note: outcome.note, cosignatures };
}
