import { canonicalJson, sha256Hex } from '../crypto/canonical-json.js';
import { GENESIS_HASH } from './audit-entry.js';

/** Length of `,"previousHash":"<64 hex digits>"`. */
const PREVIOUS_HASH_MEMBER_LENGTH = ',"previousHash":""'.length + 64;
const PREVIOUS_HASH_OPEN = ',"previousHash":"';
const INDEX_OPEN = ',"index":';
const INTENT_ID_OPEN = ',"intentId":';
const QUOTE = 0x22;

export type ChainBreakReason =
  | 'ENTRY_HASH_MISMATCH'
  | 'PREVIOUS_HASH_MISMATCH'
  | 'INDEX_GAP'
  | 'CHECKPOINT_MISMATCH';

export interface ChainBreak {
  brokenAt: number;
  reason: ChainBreakReason;
}

/** An entry as the verifier receives it: the canonical text that was hashed and the stored hash. */
export interface StoredEntry {
  index: number;
  canonical: string;
  entryHash: string;
}

/** A checkpoint whose signature the caller has already checked (or found wanting). */
export interface CheckedCheckpoint {
  index: number;
  entryHash: string;
  signatureValid: boolean;
}

/**
 * Incremental chain verification in constant memory: feed entries in index order, one at a time.
 * Returns the first break, or null while the chain holds. Pure; no I/O.
 *
 * An entry holds when its stored text hashes to its stored hash and names, as top-level members,
 * its index, the tenant and the previous entry's hash. The text is JCS (RFC 8785), so those members
 * are read where JCS puts them instead of parsing the whole entry (docs/performance.md): keys are
 * sorted, so the text ends with `,"previousHash":"<hash>","tenantId":<tenant>}`, and `index` is the
 * first `,"index":` of the text (the members before it are strings, in which every `"` is escaped).
 */
export class ChainVerifier {
  private expectedIndex: number;
  private previousHash: string | undefined;
  /** `,"tenantId":"<tenant>"}`: how every entry of the tenant ends. */
  private readonly tenantTail: string;
  length = 0;
  latestHash: string;

  /** `startPreviousHash` undefined means "trust the first entry's previousHash" (a range or export from k > 0). */
  constructor(
    tenantId: string,
    startIndex = 0,
    startPreviousHash: string | undefined = startIndex === 0 ? GENESIS_HASH : undefined,
  ) {
    this.tenantTail = `,"tenantId":${canonicalJson(tenantId)}}`;
    this.expectedIndex = startIndex;
    this.previousHash = startPreviousHash;
    this.latestHash = startPreviousHash ?? GENESIS_HASH;
  }

  push(stored: StoredEntry): ChainBreak | null {
    if (stored.index !== this.expectedIndex) {
      return { brokenAt: Math.min(stored.index, this.expectedIndex), reason: 'INDEX_GAP' };
    }
    const text = stored.canonical;
    if (!this.#namesIndexAndTenant(text, stored.index) || sha256Hex(text) !== stored.entryHash) {
      return { brokenAt: stored.index, reason: 'ENTRY_HASH_MISMATCH' };
    }
    if (this.previousHash !== undefined) {
      // `,"previousHash":"<previous>"` at its place, compared piece by piece.
      const linkAt = text.length - this.tenantTail.length - PREVIOUS_HASH_MEMBER_LENGTH;
      const hashAt = linkAt + PREVIOUS_HASH_OPEN.length;
      if (
        linkAt < 0 ||
        !text.startsWith(PREVIOUS_HASH_OPEN, linkAt) ||
        !text.startsWith(this.previousHash, hashAt) ||
        text.charCodeAt(hashAt + this.previousHash.length) !== QUOTE
      ) {
        return { brokenAt: stored.index, reason: 'PREVIOUS_HASH_MISMATCH' };
      }
    }
    this.previousHash = stored.entryHash;
    this.latestHash = stored.entryHash;
    this.expectedIndex += 1;
    this.length += 1;
    return null;
  }

  /**
   * Whether the text's first `,"index":` is followed by exactly `index` and `,"intentId":`, and the
   * text ends with the tenant's member: compared in place, without building the expected pieces.
   */
  #namesIndexAndTenant(text: string, index: number): boolean {
    const indexAt = text.indexOf(INDEX_OPEN);
    if (indexAt < 0 || !text.endsWith(this.tenantTail)) return false;
    const digits = String(index);
    const digitsAt = indexAt + INDEX_OPEN.length;
    return text.startsWith(digits, digitsAt) && text.startsWith(INTENT_ID_OPEN, digitsAt + digits.length);
  }

  get nextIndex(): number {
    return this.expectedIndex;
  }
}

/**
 * Checks checkpoints against the hashes seen at their indices. `hashAt` returns the verified hash at
 * an index, or undefined when the chain does not reach it (a truncated chain).
 */
export function checkCheckpoint(
  checkpoint: CheckedCheckpoint,
  hashAt: string | undefined,
): ChainBreak | null {
  if (!checkpoint.signatureValid || hashAt !== checkpoint.entryHash) {
    return { brokenAt: checkpoint.index, reason: 'CHECKPOINT_MISMATCH' };
  }
  return null;
}
