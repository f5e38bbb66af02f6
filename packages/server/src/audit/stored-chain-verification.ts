import { chainTimestamp } from '../chain/audit-entry.js';
import { chainRepository } from '../chain/chain-repository.js';
import { type ChainBreak, ChainVerifier, checkCheckpoint } from '../chain/chain-verifier.js';
import type { Clock } from '../foundation/clock.js';
import type { Storage } from '../storage/database.js';
import { type Checkpoint, checkpointSignatureValid, type PublicKeyLookup } from './checkpoint.js';
import { checkpointRepository } from './checkpoint-repository.js';

export interface ChainVerification {
  valid: boolean;
  /** Entries checked and found sound (the whole range when valid). */
  length: number;
  latestHash: string;
  verifiedAt: string;
  checkpointsVerified: number;
  brokenAt?: number;
  reason?: ChainBreak['reason'];
}

const PAGE = 2_000;

/**
 * Streams the tenant's chain (or an inclusive index range) page by page in constant memory,
 * checks every entry and every checkpoint in the range, and stops at the first break.
 */
export async function verifyStoredChain(
  storage: Storage,
  clock: Clock,
  tenantId: string,
  lookup: PublicKeyLookup,
  range: { from?: number; to?: number } = {},
): Promise<ChainVerification> {
  const from = range.from ?? 0;
  const head = await chainRepository.head(storage.db, tenantId);
  const lastIndex = Math.min(range.to ?? Number.MAX_SAFE_INTEGER, head?.lastIndex ?? -1);
  const verifier = new ChainVerifier(tenantId, from);
  let checkpointsVerified = 0;
  let found: ChainBreak | null = null;

  async function checkPage(
    checkpoints: Checkpoint[],
    hashes: Map<number, string>,
    before: number,
  ): Promise<ChainBreak | null> {
    for (const checkpoint of checkpoints) {
      if (checkpoint.index >= before) break;
      const signatureValid = await checkpointSignatureValid(checkpoint, lookup);
      const failure = checkCheckpoint({ ...checkpoint, signatureValid }, hashes.get(checkpoint.index));
      if (failure) return failure;
      checkpointsVerified += 1;
    }
    return null;
  }

  let cursor = from;
  while (cursor <= lastIndex && found === null) {
    const upper = Math.min(cursor + PAGE - 1, lastIndex);
    const entries = await chainRepository.storedEntries(storage.db, tenantId, { from: cursor, to: upper });
    const checkpoints = await checkpointRepository.list(storage.db, tenantId, { from: cursor, to: upper });
    const wanted = new Set(checkpoints.map((c) => c.index));
    // Only the hashes that checkpoints name are kept, so memory stays flat in the chain length.
    const hashes = new Map<number, string>();
    let entryBreak: ChainBreak | null = null;
    for (const entry of entries) {
      entryBreak = verifier.push(entry);
      if (entryBreak) break;
      if (wanted.has(entry.index)) hashes.set(entry.index, entry.entryHash);
    }
    // Rows missing at the end of the page (deleted entries) are a gap at the first missing index.
    if (!entryBreak && verifier.nextIndex <= upper)
      entryBreak = { brokenAt: verifier.nextIndex, reason: 'INDEX_GAP' };
    const checkpointBreak = await checkPage(
      checkpoints,
      hashes,
      entryBreak?.brokenAt ?? Number.MAX_SAFE_INTEGER,
    );
    found = checkpointBreak ?? entryBreak;
    cursor = upper + 1;
  }
  // A checkpoint past the end means entries were cut off the tail, unless the chain grew while it
  // was being read: a checkpoint is signed only for entries already committed, so a head read after
  // the checkpoint covers it unless its entries are gone.
  if (found === null && range.to === undefined) {
    const [beyond] = await checkpointRepository.list(storage.db, tenantId, { from: lastIndex + 1, limit: 1 });
    if (beyond && beyond.index > ((await chainRepository.head(storage.db, tenantId))?.lastIndex ?? -1))
      found = { brokenAt: beyond.index, reason: 'CHECKPOINT_MISMATCH' };
  }

  const result: ChainVerification = {
    valid: found === null,
    length: verifier.length,
    latestHash: verifier.latestHash,
    verifiedAt: chainTimestamp(clock()),
    checkpointsVerified,
  };
  if (found) {
    result.brokenAt = found.brokenAt;
    result.reason = found.reason;
  }
  return result;
}
