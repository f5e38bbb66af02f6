import { type Checkpoint, parseCheckpoint } from './checkpoint.js';
import { sameBytes } from './encoding.js';
import { emptyTreeHash } from './merkle-hash.js';
import { verifyConsistencyProof } from './merkle-verify.js';
import {
  type NoteSignature,
  type NoteVerifier,
  parseSignedNote,
  type SignedNote,
  verifySignedNote,
} from './note.js';
import { parseAddCheckpointRequest } from './witness-protocol.js';

/** What a witness remembers of a log: the last checkpoint it cosigned. */
export interface WitnessRecord {
  readonly size: number;
  readonly rootHash: Uint8Array;
}

/** What {@link checkAddCheckpoint} consults. */
export interface WitnessState {
  /** The trusted keys of each log, by origin. */
  readonly logs: ReadonlyMap<string, readonly NoteVerifier[]>;
  /** The last checkpoint cosigned for `origin`, or `undefined` when none. */
  latest(origin: string): WitnessRecord | undefined;
}

/** The witness's answer to one add-checkpoint request, before it cosigns and persists. */
export type AddCheckpointDecision =
  | {
      status: 200;
      checkpoint: Checkpoint;
      /** The note as submitted; the witness cosigns `note.text`. */
      note: SignedNote;
      /** The log's signatures that verified under a trusted key. */
      logSignatures: NoteSignature[];
    }
  | { status: 409; latestSize: number; message: string; signed: true }
  | {
      status: 400 | 403 | 404 | 422;
      message: string;
      /** Whether a trusted log key signed the checkpoint: a refused signed checkpoint is evidence. */
      signed: boolean;
    };

/**
 * Decides an add-checkpoint request exactly as C2SP `tlog-witness` orders the checks: 400 for a
 * malformed body, 404 for an unknown origin, 403 when no trusted log key signed (or a trusted key's
 * signature fails), 400 when `old` exceeds the checkpoint size, 409 when `old` is not the size last
 * cosigned, 422 when a size-0 checkpoint has another root than the empty tree's, when the proof is
 * not empty for `old 0`, when equal sizes have different roots, or when the consistency proof
 * fails; otherwise 200. Pure: the caller cosigns, persists the new record atomically with this
 * check, then answers.
 *
 * @example
 * ```ts
 * import { checkAddCheckpoint } from '@authority-runtime/sdk';
 *
 * const decision = checkAddCheckpoint(body, { logs, latest: (origin) => state.get(origin) });
 * if (decision.status === 200) cosignAndPersist(decision);
 * ```
 */
export function checkAddCheckpoint(body: string | Uint8Array, state: WitnessState): AddCheckpointDecision {
  let request: ReturnType<typeof parseAddCheckpointRequest>;
  let note: SignedNote;
  let checkpoint: Checkpoint;
  try {
    request = parseAddCheckpointRequest(body);
    note = parseSignedNote(request.checkpoint);
    checkpoint = parseCheckpoint(note.text);
  } catch (error) {
    return { status: 400, message: (error as Error).message, signed: false };
  }
  const keys = state.logs.get(checkpoint.origin);
  if (keys === undefined) return { status: 404, message: `unknown log ${checkpoint.origin}`, signed: false };
  const verification = verifySignedNote(request.checkpoint, keys);
  if (!verification.valid) return { status: 403, message: verification.detail, signed: false };

  const refuse = (status: 400 | 422, message: string) => ({ status, message, signed: true });
  if (request.oldSize > checkpoint.size) {
    return refuse(400, `old size ${request.oldSize} is above the checkpoint size ${checkpoint.size}`);
  }
  const latest = state.latest(checkpoint.origin);
  const latestSize = latest?.size ?? 0;
  if (request.oldSize !== latestSize) {
    return {
      status: 409,
      latestSize,
      message: `old size ${request.oldSize} is not ${latestSize}, the size last cosigned`,
      signed: true,
    };
  }
  if (checkpoint.size === 0 && !sameBytes(checkpoint.rootHash, emptyTreeHash())) {
    return refuse(422, 'a checkpoint of size 0 must have the root hash of the empty tree');
  }
  if (request.oldSize === 0 || latest === undefined) {
    if (request.proof.length > 0) return refuse(422, 'the consistency proof from size 0 must be empty');
  } else {
    const outcome = verifyConsistencyProof({
      fromSize: latest.size,
      fromRoot: latest.rootHash,
      toSize: checkpoint.size,
      toRoot: checkpoint.rootHash,
      proof: request.proof,
    });
    if (!outcome.valid) {
      return refuse(422, `not consistent with size ${latest.size}: ${outcome.reason}: ${outcome.detail}`);
    }
  }
  return { status: 200, checkpoint, note, logSignatures: verification.verified };
}
