import {
  auditEntryHash,
  checkEntryShape,
  GENESIS_HASH,
  HASH_PATTERN,
  isChainIndex,
  isChainTimestamp,
} from './audit-entry.js';
import { canonicalJson } from './canonical.js';
import { type PinnedKeys, pinnedKeySource } from './jwks.js';
import { verifySignedStatement } from './jws.js';
import { isRecord } from './keys.js';
import type { ChainExportReason } from './reasons.js';
import type { Checkpoint } from './wire/audit.js';

/** The JWS `typ` of a checkpoint. */
export const CHECKPOINT_TYP = 'authority-checkpoint+jws';

/**
 * How many of the most recent entry hashes {@link verifyChainExport} keeps to check checkpoints
 * against. The export writes each checkpoint right after the entry it names, so one would do; the
 * window tolerates an exporter that writes a page's checkpoints after the page (pages hold 1,000
 * entries), at a fixed memory cost of about 100 KiB.
 */
export const CHECKPOINT_WINDOW = 1_024;

/** {@link VerifyChainExportOptions.onProgress} is called each time this many more entries verified. */
export const PROGRESS_INTERVAL = 10_000;

/** A signed statement of the chain head (docs/audit-chain.md, "Checkpoints"): the wire contract's `Checkpoint`. */
export type { Checkpoint };

/** Options of {@link verifyChainExport}. */
export interface VerifyChainExportOptions {
  /**
   * The keys to check checkpoint signatures with: the tenant's JWKS merged with its archive of
   * RETIRED keys, or a {@link KeySource}. Without it, checkpoints are still compared with the chain
   * but their signatures are not checked (counted in `checkpointsUnverified`).
   */
  jwks?: PinnedKeys;
  /** The tenant the export must belong to; defaults to the first entry's tenant. */
  tenantId?: string;
  /** Called with the number of entries verified so far, every {@link PROGRESS_INTERVAL} entries. */
  onProgress?: (count: number) => void;
}

interface ChainExportSummary {
  /** Entries checked and found sound (all of them when valid). */
  length: number;
  /** `entryHash` of the last sound entry; 64 zeros when there is none. */
  latestHash: string;
  /** Checkpoints whose hash matched the chain and whose signature verified under a pinned key. */
  checkpointsVerified: number;
  /** Checkpoints whose hash matched the chain, signature not checked (no `jwks` given). */
  checkpointsUnverified: number;
  /** Index of the export's first entry, `null` when it held none. */
  firstIndex: number | null;
  /**
   * The first entry's `previousHash`: 64 zeros for an export from entry 0; for an export from
   * k > 0 it is taken on trust, so compare it with a hash you know (an earlier export's
   * `latestHash`, or a checkpoint) to extend the guarantee back. `null` when there is no entry.
   */
  anchorHash: string | null;
}

/** An export whose every entry and checkpoint verified. */
export interface ChainExportValid extends ChainExportSummary {
  valid: true;
}

/** An export with a break: the first problem found, where, and a detail for logs. */
export interface ChainExportInvalid extends ChainExportSummary {
  valid: false;
  /**
   * Where the chain breaks: the index of the offending (or missing) entry, or the index a bad
   * checkpoint names. For a line that cannot be read, the index expected next (0 before any entry).
   */
  brokenAt: number;
  reason: ChainExportReason;
  detail: string;
}

/** The outcome of {@link verifyChainExport}. */
export type ChainExportVerification = ChainExportValid | ChainExportInvalid;

/**
 * Verifies an NDJSON audit export (`GET /audit/:tenantId/export`, docs/audit-chain.md "Timeline and
 * export") offline, line by line in constant memory, and stops at the first break.
 *
 * `lines` yields the export's lines (for example `readline` over a file stream); blank lines are
 * skipped and a trailing `\r` is ignored. Each line is `{"entry": {…}}` or `{"checkpoint": {…}}`.
 * Per entry, in this order:
 *
 * 1. `EXPORT_MALFORMED`: the line is not JSON or not exactly one of those two forms, or the entry
 *    has no integer `index`.
 * 2. `INDEX_GAP`: the index is not the one expected next (the first entry sets the start k).
 * 3. `ENTRY_HASH_MISMATCH`: a documented member missing or of the wrong type; the entry belongs to
 *    another tenant than `options.tenantId` (or the first entry's); or `entryHash` is not
 *    `sha256_hex(JCS(entry without entryHash))`.
 * 4. `PREVIOUS_HASH_MISMATCH`: `previousHash` is not the previous entry's `entryHash`. The first
 *    entry's `previousHash` must be 64 zeros when its index is 0 and is trusted when it is k > 0
 *    (reported as `anchorHash`).
 *
 * Per checkpoint, `CHECKPOINT_MISMATCH` (brokenAt = its index) when: a member is missing or of the
 * wrong type; it precedes every entry or names another tenant; it names an entry the export does not
 * hold (a truncated tail, or one before the export's start) or one more than
 * {@link CHECKPOINT_WINDOW} entries back; its `entryHash` is not the chain's at its index; or, with
 * `options.jwks`, its signature is not a compact JWS with `typ` `authority-checkpoint+jws`, the
 * checkpoint's `kid` (a kid of this tenant, pinned), the pinned key's own algorithm, and payload
 * exactly `JCS({tenantId, index, entryHash, issuedAt})`.
 *
 * Never throws for a bad export; throws a `TypeError` for bad options or when `lines` is not
 * iterable, and lets errors thrown by the iterable or by `onProgress` propagate. An empty export is
 * valid with `length: 0`. A truncated tail is detected only when a checkpoint names a missing entry.
 *
 * @example
 * ```ts
 * import { createReadStream } from 'node:fs';
 * import { createInterface } from 'node:readline';
 * import { verifyChainExport } from '@authority-runtime/sdk';
 *
 * const lines = createInterface({ input: createReadStream('acme-export.ndjson'), crlfDelay: Infinity });
 * const result = await verifyChainExport(lines, {
 *   jwks: { keys: [...current.keys, ...archive.keys] },
 *   tenantId: 'acme',
 *   onProgress: (count) => console.error(`${count} entries verified`),
 * });
 * if (!result.valid) console.error(`broken at ${result.brokenAt}: ${result.reason} (${result.detail})`);
 * ```
 */
export async function verifyChainExport(
  lines: AsyncIterable<string> | Iterable<string>,
  options: VerifyChainExportOptions = {},
): Promise<ChainExportVerification> {
  if (!isRecord(options as unknown)) throw new TypeError('verifyChainExport: options must be an object');
  const keys = options.jwks === undefined ? undefined : pinnedKeySource(options.jwks, 'verifyChainExport');
  const { onProgress } = options;
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw new TypeError('verifyChainExport: options.onProgress must be a function');
  }
  let tenantId = options.tenantId;
  if (tenantId !== undefined && (typeof tenantId !== 'string' || tenantId === '')) {
    throw new TypeError('verifyChainExport: options.tenantId must be a non-empty string');
  }
  const iterable = lines as Partial<AsyncIterable<unknown> & Iterable<unknown>> | null | undefined;
  if (typeof iterable === 'string') {
    throw new TypeError(
      'verifyChainExport: lines must be an iterable of lines, not one string (split it first)',
    );
  }
  if (
    iterable === null ||
    typeof iterable !== 'object' ||
    (typeof iterable[Symbol.asyncIterator] !== 'function' && typeof iterable[Symbol.iterator] !== 'function')
  ) {
    throw new TypeError('verifyChainExport: lines must be an iterable or async iterable of strings');
  }

  const summary: ChainExportSummary = {
    length: 0,
    latestHash: GENESIS_HASH,
    checkpointsVerified: 0,
    checkpointsUnverified: 0,
    firstIndex: null,
    anchorHash: null,
  };
  const recent = new RecentHashes(CHECKPOINT_WINDOW);
  /** Index the next entry must have; undefined until the first entry sets the start. */
  let expected: number | undefined;

  const broken = (reason: ChainExportReason, brokenAt: number, detail: string): ChainExportInvalid => ({
    valid: false,
    ...summary,
    brokenAt,
    reason,
    detail,
  });

  for await (const raw of lines as AsyncIterable<unknown>) {
    const next = expected ?? 0;
    if (typeof raw !== 'string') return broken('EXPORT_MALFORMED', next, 'a line is not a string');
    if (raw.trim() === '') continue;
    let record: unknown;
    try {
      record = JSON.parse(raw);
    } catch {
      return broken('EXPORT_MALFORMED', next, 'a line is not JSON');
    }
    const names = isRecord(record) ? Object.keys(record) : [];
    if (!isRecord(record) || names.length !== 1 || !isRecord(record[names[0] ?? ''])) {
      return broken('EXPORT_MALFORMED', next, 'a line is neither {"entry": {…}} nor {"checkpoint": {…}}');
    }

    if (names[0] === 'entry') {
      const value = record.entry as Record<string, unknown>;
      if (!isChainIndex(value.index))
        return broken('EXPORT_MALFORMED', next, 'an entry has no integer index');
      const index = value.index;
      if (expected === undefined) {
        expected = index;
        summary.firstIndex = index;
      } else if (index !== expected) {
        return broken('INDEX_GAP', expected, `expected entry ${expected}, found entry ${index}`);
      }
      const entry = checkEntryShape(value);
      if (typeof entry === 'string') return broken('ENTRY_HASH_MISMATCH', index, `malformed entry: ${entry}`);
      tenantId ??= entry.tenantId;
      if (entry.tenantId !== tenantId) {
        return broken(
          'ENTRY_HASH_MISMATCH',
          index,
          `entry belongs to tenant ${entry.tenantId}, not ${tenantId}`,
        );
      }
      if (auditEntryHash(entry) !== entry.entryHash) {
        return broken('ENTRY_HASH_MISMATCH', index, 'the entry does not hash to its entryHash');
      }
      if (summary.anchorHash === null) {
        if (index === 0 && entry.previousHash !== GENESIS_HASH) {
          return broken('PREVIOUS_HASH_MISMATCH', index, 'entry 0 does not start from 64 zeros');
        }
        summary.anchorHash = entry.previousHash;
      } else if (entry.previousHash !== summary.latestHash) {
        return broken('PREVIOUS_HASH_MISMATCH', index, `previousHash is not entry ${index - 1}'s hash`);
      }
      summary.latestHash = entry.entryHash;
      summary.length += 1;
      expected = index + 1;
      recent.push(index, entry.entryHash);
      if (onProgress !== undefined && summary.length % PROGRESS_INTERVAL === 0) onProgress(summary.length);
      continue;
    }

    if (names[0] === 'checkpoint') {
      const value = record.checkpoint as Record<string, unknown>;
      if (!isChainIndex(value.index))
        return broken('EXPORT_MALFORMED', next, 'a checkpoint has no integer index');
      const checkpoint = checkCheckpointShape(value);
      const at = value.index;
      if (typeof checkpoint === 'string')
        return broken('CHECKPOINT_MISMATCH', at, `malformed checkpoint: ${checkpoint}`);
      if (tenantId === undefined || summary.firstIndex === null) {
        return broken('CHECKPOINT_MISMATCH', at, 'the checkpoint precedes every entry of the export');
      }
      if (checkpoint.tenantId !== tenantId)
        return broken('CHECKPOINT_MISMATCH', at, 'the checkpoint names another tenant');
      const hash = recent.get(at);
      if (typeof hash !== 'string') return broken('CHECKPOINT_MISMATCH', at, hash.problem);
      if (hash !== checkpoint.entryHash) {
        return broken('CHECKPOINT_MISMATCH', at, `the checkpoint's entryHash is not the chain's at ${at}`);
      }
      if (keys === undefined) {
        summary.checkpointsUnverified += 1;
        continue;
      }
      const { signature, kid, ...fields } = checkpoint;
      const payload = canonicalJson({
        tenantId: fields.tenantId,
        index: fields.index,
        entryHash: fields.entryHash,
        issuedAt: fields.issuedAt,
      });
      if (payload === undefined)
        return broken('CHECKPOINT_MISMATCH', at, 'the checkpoint has no canonical form');
      const checked = await verifySignedStatement(signature, {
        typ: CHECKPOINT_TYP,
        tenantId,
        kid,
        payload,
        keys,
      });
      if ('unavailable' in checked) return broken('KEY_SOURCE_UNAVAILABLE', at, checked.unavailable);
      if ('problem' in checked)
        return broken('CHECKPOINT_MISMATCH', at, `checkpoint signature: ${checked.problem}`);
      summary.checkpointsVerified += 1;
      continue;
    }

    return broken('EXPORT_MALFORMED', next, 'a line is neither {"entry": {…}} nor {"checkpoint": {…}}');
  }
  return { valid: true, ...summary };
}

function checkCheckpointShape(value: Record<string, unknown>): Checkpoint | string {
  for (const name of ['tenantId', 'kid', 'signature'] as const) {
    const member = value[name];
    if (typeof member !== 'string' || member === '') return `${name} is missing or not a non-empty string`;
  }
  const { entryHash, issuedAt } = value;
  if (typeof entryHash !== 'string' || !HASH_PATTERN.test(entryHash))
    return 'entryHash is not 64 lower-case hex digits';
  if (!isChainTimestamp(issuedAt)) return 'issuedAt is not YYYY-MM-DDTHH:mm:ss.sssZ';
  return value as unknown as Checkpoint;
}

/** The hashes of the last `size` entries, by index, in a fixed ring. */
class RecentHashes {
  readonly #hashes: string[];
  #first = -1;
  #last = -1;

  constructor(readonly size: number) {
    this.#hashes = new Array<string>(size);
  }

  push(index: number, hash: string): void {
    if (this.#first === -1) this.#first = index;
    this.#last = index;
    this.#hashes[index % this.size] = hash;
  }

  get(index: number): string | { problem: string } {
    if (this.#last === -1 || index > this.#last) {
      return { problem: `the checkpoint names entry ${index}, which the export does not hold before it` };
    }
    if (index < this.#first)
      return { problem: `the checkpoint names entry ${index}, before the export's start` };
    if (index <= this.#last - this.size) {
      return { problem: `the checkpoint names entry ${index}, more than ${this.size} entries back` };
    }
    return this.#hashes[index % this.size] ?? { problem: `no hash recorded for entry ${index}` };
  }
}
