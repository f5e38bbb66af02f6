import { canonicalJson, sha256Hex } from './canonical.js';
import { isRecord } from './keys.js';
import type { AuditEntry } from './wire/audit.js';

/** `previousHash` of entry 0 of every chain: 64 zeros. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * One entry of a tenant's hash-chained audit log, as exported and as embedded in receipts
 * (docs/audit-chain.md, "Entries"); the wire contract's `AuditEntry`.
 */
export type { AuditEntry };

/** @internal 64 lower-case hex digits: a SHA-256 as the chain writes it. */
export const HASH_PATTERN = /^[0-9a-f]{64}$/;

const TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * @internal
 * Whether `value` is a timestamp in the chain's only form, `YYYY-MM-DDTHH:mm:ss.sssZ`, naming a real
 * instant (`2026-02-30T…` is refused).
 *
 * @example
 * ```ts
 * isChainTimestamp('2026-11-22T03:31:22.768Z'); // true
 * isChainTimestamp('2026-11-22T03:31:22Z'); // false
 * ```
 */
export function isChainTimestamp(value: unknown): value is string {
  if (typeof value !== 'string' || !TIMESTAMP_PATTERN.test(value)) return false;
  const time = Date.parse(value);
  return Number.isFinite(time) && new Date(time).toISOString() === value;
}

/**
 * @internal
 * Whether `value` is an integer index of the chain (0 to 2^53 - 1).
 *
 * @example
 * ```ts
 * isChainIndex(0); // true
 * isChainIndex(1.5); // false
 * ```
 */
export function isChainIndex(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/**
 * @internal
 * Checks that `value` has the shape of an audit entry: every documented member present with its
 * type (`index` a non-negative integer; `tenantId`, `actorId`, `actorType`, `eventType` non-empty
 * strings; `correlationId` and `intentId` non-empty strings or `null`; `payload` present;
 * `previousHash` and `entryHash` 64 lower-case hex digits; `createdAt` a chain timestamp). Members
 * beyond the documented ones are allowed: they are covered by `entryHash` like every other member.
 * Returns the entry, or what is wrong with it.
 *
 * @example
 * ```ts
 * const entry = checkEntryShape(JSON.parse(line).entry);
 * if (typeof entry === 'string') return fail('EXPORT_MALFORMED', entry);
 * ```
 */
export function checkEntryShape(value: unknown): AuditEntry | string {
  if (!isRecord(value)) return 'the entry is not a JSON object';
  if (!isChainIndex(value.index)) return 'index is not a non-negative integer';
  for (const name of ['tenantId', 'actorId', 'actorType', 'eventType'] as const) {
    const member = value[name];
    if (typeof member !== 'string' || member === '') return `${name} is missing or not a non-empty string`;
  }
  for (const name of ['correlationId', 'intentId'] as const) {
    const member = value[name];
    if (member !== null && (typeof member !== 'string' || member === '')) {
      return `${name} is missing or neither a non-empty string nor null`;
    }
  }
  if (!('payload' in value)) return 'payload is missing';
  for (const name of ['previousHash', 'entryHash'] as const) {
    const member = value[name];
    if (typeof member !== 'string' || !HASH_PATTERN.test(member))
      return `${name} is not 64 lower-case hex digits`;
  }
  if (!isChainTimestamp(value.createdAt)) return 'createdAt is not YYYY-MM-DDTHH:mm:ss.sssZ';
  return value as unknown as AuditEntry;
}

/**
 * Recomputes an audit entry's hash as the chain defines it: `sha256_hex(JCS(entry without
 * entryHash))`, JCS being RFC 8785 canonical JSON. Returns `undefined` when the entry has no
 * canonical form (for example a string with a lone surrogate). The entry's own `entryHash` is
 * ignored: compare the result with it to check the entry.
 *
 * @example
 * ```ts
 * import { auditEntryHash } from '@authority-runtime/sdk';
 *
 * const sound = auditEntryHash(entry) === entry.entryHash;
 * ```
 */
export function auditEntryHash(entry: AuditEntry | Readonly<Record<string, unknown>>): string | undefined {
  const { entryHash: _ignored, ...rest } = entry;
  const text = canonicalJson(rest);
  return text === undefined ? undefined : sha256Hex(text);
}
