import {
  auditEntryHash,
  checkEntryShape,
  GENESIS_HASH,
  HASH_PATTERN,
  isChainIndex,
  isChainTimestamp,
} from './audit-entry.js';
import { canonicalJson, sameJson } from './canonical.js';
import { type PinnedKeys, pinnedKeySource } from './jwks.js';
import { resolveKey, verifySignedStatement } from './jws.js';
import { isRecord } from './keys.js';
import type { ReceiptVerificationReason } from './reasons.js';
import { verifyCheckpoint } from './transparency/checkpoint.js';
import { ed25519NoteVerifier } from './transparency/ed25519-note-keys.js';
import { hashFromHex } from './transparency/encoding.js';
import { leafHash } from './transparency/merkle-hash.js';
import { verifyInclusionProof } from './transparency/merkle-verify.js';
import {
  formatVerifierKey,
  type NoteKeyType,
  parseVerifierKey,
  type VerifierKey,
} from './transparency/note-keys.js';
import { type AuthorityTokenClaims, verifyTokenSignature } from './verify.js';
import type { Receipt, ReceiptInclusion, ReceiptSeal, ReceiptV1 } from './wire/audit.js';

/** The JWS `typ` of a receipt seal. */
export const RECEIPT_SEAL_TYP = 'authority-receipt-seal+jws';

/**
 * The seal of a receipt: a signed statement of the chain head that also binds the intent's
 * entries. `signature` is a compact JWS over exactly `JCS(seal without signature)`. An intent's
 * receipt is `GET /intent/:id/receipt` (docs/audit-chain.md, "Receipt"): version 2 adds the log's
 * checkpoint and an inclusion proof per entry. All are the wire contract's types.
 */
export type { Receipt, ReceiptInclusion, ReceiptSeal, ReceiptV1 };

/** A receipt of either version, as {@link verifyReceipt} accepts it. */
export type AnyReceipt = Receipt | ReceiptV1;

/** Options of {@link verifyReceipt}. */
export interface VerifyReceiptOptions {
  /**
   * The keys to trust, and the only ones: the tenant's current JWKS merged with its archive of
   * RETIRED keys (`GET /.well-known/authority/:tenantId/jwks-archive.json`), exactly as published,
   * or a {@link KeySource} such as {@link staticJwks}.
   */
  jwks: PinnedKeys;
  /** When given, a receipt of another tenant fails with `TENANT_MISMATCH`. */
  expectedTenantId?: string;
  /**
   * The tenant's pinned log key: the verifier key text served at
   * `GET /.well-known/authority/:tenantId/log-key` (`<origin>+<key ID>+<base64>`), or its parsed
   * form. Required for a version-2 receipt, which fails with `LOG_KEY_MISSING` without it; a
   * version-1 receipt does not use it.
   */
  logKey?: string | VerifierKey;
}

/** A receipt that passed every check. */
export interface ReceiptValid {
  valid: true;
  /** The verified receipt, a fresh copy of the input. */
  receipt: AnyReceipt;
  /** The verified token's claims, or `null` when the receipt carries no token. */
  tokenClaims: AuthorityTokenClaims | null;
}

/** A rejected receipt: `reason` is stable and machine-readable, `detail` is for logs only. */
export interface ReceiptInvalid {
  valid: false;
  reason: ReceiptVerificationReason;
  detail: string;
}

/** The outcome of {@link verifyReceipt}. */
export type ReceiptVerification = ReceiptValid | ReceiptInvalid;

const RECEIPT_MEMBERS = new Set([
  'receiptVersion',
  'intentId',
  'tenantId',
  'decision',
  'token',
  'entries',
  'seal',
  'jwks',
]);
const RECEIPT_V2_MEMBERS = new Set([...RECEIPT_MEMBERS, 'checkpoint', 'inclusion']);
const INCLUSION_MEMBERS = new Set(['index', 'proof']);
const SEAL_MEMBERS = new Set([
  'tenantId',
  'intentId',
  'entryHashes',
  'headIndex',
  'headHash',
  'issuedAt',
  'signature',
]);

/**
 * Verifies an intent's receipt offline, with no network: trust comes only from `options.jwks`, the
 * keys the caller pins; the receipt's embedded `jwks` is never used to verify anything.
 *
 * `receipt` is the parsed receipt or its JSON text. Returns a discriminated result and never throws
 * for a bad receipt; it throws a `TypeError` only for bad options. Checks run in this order and the
 * first failure is reported:
 *
 * 1. `RECEIPT_MALFORMED`: not JSON; `receiptVersion` not `1` or `2`; a member missing, of the wrong
 *    type, or unknown (at the top level, in the seal and in `inclusion`); no entries; an entry
 *    without its documented members and types; a hash that is not 64 lower-case hex digits; a
 *    timestamp not `YYYY-MM-DDTHH:mm:ss.sssZ`; `jwks` not `{keys: [objects]}`. Version 2 also:
 *    `checkpoint` not a non-empty string; `inclusion` not one `{index, proof: [hashes]}` per
 *    entry, in order, with `inclusion[i].index` equal to `entries[i].index`.
 * 2. `LOG_KEY_MISSING`: a version-2 receipt and no `options.logKey`. Nothing is skipped.
 * 3. `TENANT_MISMATCH`: `tenantId` is not `options.expectedTenantId` (when given).
 * 4. `ENTRY_HASH_MISMATCH`: an entry's `entryHash` is not `sha256_hex(JCS(entry without entryHash))`.
 * 5. `ENTRY_MISMATCH`: an entry's `tenantId` or `intentId` is not the receipt's; the entries'
 *    indices are not strictly increasing; entry 0's `previousHash` is not 64 zeros; or an entry
 *    directly following another in the chain (index + 1) does not carry that entry's hash as
 *    `previousHash`.
 * 6. `SEAL_MISMATCH`: the seal's `tenantId` / `intentId` are not the receipt's; `entryHashes` is not
 *    the entries' hashes in order; an entry's index is above `headIndex`; the entry at `headIndex`
 *    (when the receipt holds it) is not `headHash`.
 * 7. `SEAL_SIGNATURE_INVALID`: `seal.signature` is not a compact JWS with header `typ`
 *    `authority-receipt-seal+jws` and a kid of this tenant (`<tenantId>-<seconds>-<base32>`) that is
 *    pinned; it does not verify with the pinned key's own algorithm (EdDSA, RS256 or ES256, never the
 *    header's choice); or its payload is not exactly `JCS(seal without signature)`.
 * 8. `CHECKPOINT_INVALID` (version 2): `checkpoint` is not a checkpoint note signed by the pinned
 *    log key whose origin is the key's name (see {@link verifyCheckpoint}; witness cosignature lines
 *    are ignored); its origin does not end in `/audit/<tenantId>`; or its tree size is not
 *    `seal.headIndex + 1`.
 * 9. `INCLUSION_PROOF_INVALID` (version 2): some entry's RFC 9162 inclusion proof does not lead
 *    from `leafHash(entryHash)` at its index to the checkpoint's root hash.
 * 10. `TOKEN_INVALID` (the detail says which check): an `APPROVED` receipt without a token; a token
 *    that fails the structural, kid (this tenant, pinned) or signature checks of
 *    {@link verifyAuthorityToken} (algorithm fixed by the key, `iss` = `service-authority`, `aud` =
 *    its own `adapterId`); claims `intentId` / `tenantId` not the receipt's; claim `decision` not
 *    `APPROVED`; or a token on a receipt whose `decision` is not `APPROVED`. Expiry is **not**
 *    checked (receipts are verified long after their tokens expired) and no nonce is consumed.
 * 11. `EMBEDDED_JWKS_MISMATCH`: a key of the embedded `jwks` has no kid, is listed twice, is not
 *    pinned, or is not identical (as JSON) to the pinned key of that kid. The embedded set is the
 *    tenant's published keys (JWKS and archive) when the receipt was issued, and keys are never
 *    deleted from the archive, so all of it is in the current JWKS plus the archive; a receipt that
 *    misdescribes the tenant's keys is rejected rather than half-trusted.
 *
 * `KEY_SOURCE_UNAVAILABLE` is reported only when `options.jwks` is a key source that throws.
 *
 * @example
 * ```ts
 * import { readFile } from 'node:fs/promises';
 * import { verifyReceipt } from '@authority-runtime/sdk';
 *
 * const base = 'https://authority.example.com/.well-known/authority/acme';
 * const current = await (await fetch(`${base}/jwks.json`)).json();
 * const archive = await (await fetch(`${base}/jwks-archive.json`)).json();
 * // Pin once (store these keys with your records); verifying needs no network.
 * const jwks = { keys: [...current.keys, ...archive.keys] };
 *
 * const logKey = await (await fetch(`${base}/log-key`)).text();
 * const result = await verifyReceipt(await readFile('receipt.json', 'utf8'), {
 *   jwks,
 *   logKey,
 *   expectedTenantId: 'acme',
 * });
 * if (!result.valid) throw new Error(`receipt rejected: ${result.reason} (${result.detail})`);
 * console.log(result.receipt.decision, result.tokenClaims?.proposedAction);
 * ```
 */
export async function verifyReceipt(
  receipt: unknown,
  options: VerifyReceiptOptions,
): Promise<ReceiptVerification> {
  if (!isRecord(options)) throw new TypeError('verifyReceipt: options are required');
  const keys = pinnedKeySource(options.jwks, 'verifyReceipt');
  const { expectedTenantId } = options;
  if (expectedTenantId !== undefined && (typeof expectedTenantId !== 'string' || expectedTenantId === '')) {
    throw new TypeError('verifyReceipt: options.expectedTenantId must be a non-empty string');
  }
  const logKey = pinnedLogKey(options.logKey);

  // 1. Structure, on a private copy so that nothing can change under the checks.
  const copy = jsonCopy(receipt);
  if (copy === undefined) return fail('RECEIPT_MALFORMED', 'the receipt is not JSON');
  const checked = checkReceiptShape(copy);
  if (typeof checked === 'string') return fail('RECEIPT_MALFORMED', checked);
  const { entries, seal } = checked;

  // 2. A version-2 receipt needs the log key.
  if (checked.receiptVersion === 2 && logKey === undefined) {
    return fail(
      'LOG_KEY_MISSING',
      "a version-2 receipt verifies only against the tenant's pinned log key (options.logKey)",
    );
  }

  // 3. Tenant.
  if (expectedTenantId !== undefined && checked.tenantId !== expectedTenantId) {
    return fail('TENANT_MISMATCH', 'the receipt belongs to another tenant');
  }

  // 4. Each entry's hash.
  for (const [position, entry] of entries.entries()) {
    if (auditEntryHash(entry) !== entry.entryHash) {
      return fail(
        'ENTRY_HASH_MISMATCH',
        `entries[${position}] (index ${entry.index}) does not hash to its entryHash`,
      );
    }
  }

  // 5. Each entry belongs to this tenant and intent; chain order and links where visible.
  for (const [position, entry] of entries.entries()) {
    if (entry.tenantId !== checked.tenantId) {
      return fail('ENTRY_MISMATCH', `entries[${position}] belongs to another tenant`);
    }
    if (entry.intentId !== checked.intentId) {
      return fail('ENTRY_MISMATCH', `entries[${position}] belongs to another intent`);
    }
    if (entry.index === 0 && entry.previousHash !== GENESIS_HASH) {
      return fail('ENTRY_MISMATCH', 'entry 0 does not start from 64 zeros');
    }
    const before = position > 0 ? entries[position - 1] : undefined;
    if (before === undefined) continue;
    if (entry.index <= before.index) {
      return fail(
        'ENTRY_MISMATCH',
        `entries[${position}] is not after entries[${position - 1}] in the chain`,
      );
    }
    if (entry.index === before.index + 1 && entry.previousHash !== before.entryHash) {
      return fail('ENTRY_MISMATCH', `entry ${entry.index} does not link to entry ${before.index}`);
    }
  }

  // 6. The seal binds exactly these entries, at or before the head.
  if (seal.tenantId !== checked.tenantId) return fail('SEAL_MISMATCH', 'the seal names another tenant');
  if (seal.intentId !== checked.intentId) return fail('SEAL_MISMATCH', 'the seal names another intent');
  if (
    seal.entryHashes.length !== entries.length ||
    seal.entryHashes.some((hash, position) => hash !== entries[position]?.entryHash)
  ) {
    return fail('SEAL_MISMATCH', "seal.entryHashes is not the entries' hashes in order");
  }
  for (const entry of entries) {
    if (entry.index > seal.headIndex) {
      return fail('SEAL_MISMATCH', `entry ${entry.index} lies after the sealed head ${seal.headIndex}`);
    }
    if (entry.index === seal.headIndex && entry.entryHash !== seal.headHash) {
      return fail('SEAL_MISMATCH', `entry ${entry.index} is the sealed head but not headHash`);
    }
  }

  // 7. The seal's signature, under a pinned key of the tenant.
  const { signature, ...sealFields } = seal;
  const sealPayload = canonicalJson(sealFields);
  if (sealPayload === undefined) return fail('SEAL_SIGNATURE_INVALID', 'the seal has no canonical form');
  const sealCheck = await verifySignedStatement(signature, {
    typ: RECEIPT_SEAL_TYP,
    tenantId: checked.tenantId,
    payload: sealPayload,
    keys,
  });
  if ('unavailable' in sealCheck) return fail('KEY_SOURCE_UNAVAILABLE', sealCheck.unavailable);
  if ('problem' in sealCheck) return fail('SEAL_SIGNATURE_INVALID', sealCheck.problem);

  // 8 and 9. The checkpoint and inclusion proofs of a version-2 receipt, against the pinned log key.
  if (checked.receiptVersion === 2 && logKey !== undefined) {
    const problem = checkInclusion(checked, logKey);
    if (problem !== undefined) return fail(problem.reason, problem.detail);
  }

  // 10. The token: signed by a pinned key, about this intent, APPROVED. Expiry is not checked.
  let tokenClaims: AuthorityTokenClaims | null = null;
  if (checked.token === null) {
    if (checked.decision === 'APPROVED') return fail('TOKEN_INVALID', 'an APPROVED receipt carries no token');
  } else {
    const token = await verifyTokenSignature(checked.token, keys, checked.tenantId);
    if (!token.valid) {
      if (token.reason === 'KEY_SOURCE_UNAVAILABLE') return fail('KEY_SOURCE_UNAVAILABLE', token.detail);
      return fail('TOKEN_INVALID', `${token.reason}: ${token.detail}`);
    }
    const { claims } = token;
    if (claims.intentId !== checked.intentId) return fail('TOKEN_INVALID', 'the token names another intent');
    if (claims.tenantId !== checked.tenantId) return fail('TOKEN_INVALID', 'the token names another tenant');
    if (claims.decision !== 'APPROVED') return fail('TOKEN_INVALID', 'the token decision is not APPROVED');
    if (checked.decision !== 'APPROVED') {
      return fail('TOKEN_INVALID', `a token was issued but the receipt decision is ${checked.decision}`);
    }
    tokenClaims = claims as AuthorityTokenClaims;
  }

  // 11. The embedded key set, informational, must not contradict the pinned keys.
  const seen = new Set<string>();
  for (const [position, key] of checked.jwks.keys.entries()) {
    const { kid } = key;
    if (typeof kid !== 'string' || kid === '') {
      return fail('EMBEDDED_JWKS_MISMATCH', `jwks.keys[${position}] has no kid`);
    }
    if (seen.has(kid)) return fail('EMBEDDED_JWKS_MISMATCH', `jwks lists kid ${kid} twice`);
    seen.add(kid);
    const found = await resolveKey(keys, kid);
    if ('unavailable' in found) return fail('KEY_SOURCE_UNAVAILABLE', found.unavailable);
    if ('unknown' in found) return fail('EMBEDDED_JWKS_MISMATCH', `embedded key ${kid} is not pinned`);
    if (!sameJson(found.jwk, key)) {
      return fail('EMBEDDED_JWKS_MISMATCH', `embedded key ${kid} differs from the pinned key`);
    }
  }

  return { valid: true, receipt: checked, tokenClaims };
}

/** A deep JSON copy of the input (parsed when it is JSON text); `undefined` when it is not JSON. */
function jsonCopy(value: unknown): unknown {
  try {
    if (typeof value === 'string') return JSON.parse(value);
    const text = JSON.stringify(value);
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

function pinnedLogKey(key: unknown): VerifierKey | undefined {
  if (key === undefined) return undefined;
  if (typeof key !== 'string' && !isRecord(key)) {
    throw new TypeError('verifyReceipt: options.logKey must be a log verifier key');
  }
  try {
    const text =
      typeof key === 'string'
        ? key.replace(/\n$/, '')
        : formatVerifierKey(String(key.name), Number(key.type) as NoteKeyType, key.publicKey as Uint8Array);
    const parsed = parseVerifierKey(text);
    ed25519NoteVerifier(parsed);
    return parsed;
  } catch (error) {
    throw new TypeError(
      `verifyReceipt: options.logKey is not a log verifier key: ${(error as Error).message}`,
    );
  }
}

function checkInclusion(
  receipt: Receipt,
  logKey: VerifierKey,
): { reason: ReceiptVerificationReason; detail: string } | undefined {
  const outcome = verifyCheckpoint(receipt.checkpoint, { logKey });
  if (!outcome.valid) return { reason: 'CHECKPOINT_INVALID', detail: `${outcome.reason}: ${outcome.detail}` };
  const { origin, size, rootHash } = outcome.checkpoint;
  if (!origin.endsWith(`/audit/${receipt.tenantId}`)) {
    return {
      reason: 'CHECKPOINT_INVALID',
      detail: `the checkpoint is of ${origin}, not of tenant ${receipt.tenantId}`,
    };
  }
  if (size !== receipt.seal.headIndex + 1) {
    return {
      reason: 'CHECKPOINT_INVALID',
      detail: `the checkpoint is for tree size ${size}, the seal's head for ${receipt.seal.headIndex + 1}`,
    };
  }
  for (const [position, entry] of receipt.entries.entries()) {
    const proof = receipt.inclusion[position]?.proof ?? [];
    const verified = verifyInclusionProof({
      index: entry.index,
      treeSize: size,
      leafHash: leafHash(entry.entryHash),
      proof: proof.map(hashFromHex),
      rootHash,
    });
    if (!verified.valid) {
      return {
        reason: 'INCLUSION_PROOF_INVALID',
        detail: `entry ${entry.index} is not in the checkpoint's tree: ${verified.reason}: ${verified.detail}`,
      };
    }
  }
  return undefined;
}

function checkReceiptShape(value: unknown): AnyReceipt | string {
  if (!isRecord(value)) return 'the receipt is not a JSON object';
  const version = value.receiptVersion;
  if (version !== 1 && version !== 2) return 'receiptVersion is not 1 or 2';
  const members = version === 1 ? RECEIPT_MEMBERS : RECEIPT_V2_MEMBERS;
  const unknownMember = Object.keys(value).find((name) => !members.has(name));
  if (unknownMember !== undefined) return `unknown member ${JSON.stringify(unknownMember)}`;
  for (const name of ['intentId', 'tenantId', 'decision'] as const) {
    const member = value[name];
    if (typeof member !== 'string' || member === '') return `${name} is missing or not a non-empty string`;
  }
  if (value.token !== null && (typeof value.token !== 'string' || value.token === '')) {
    return 'token is missing or neither a non-empty string nor null';
  }
  const { entries, seal, jwks } = value;
  if (!Array.isArray(entries) || entries.length === 0) return 'entries is missing, not an array or empty';
  for (const [position, entry] of entries.entries()) {
    const shaped = checkEntryShape(entry);
    if (typeof shaped === 'string') return `entries[${position}]: ${shaped}`;
  }
  const sealProblem = checkSealShape(seal);
  if (sealProblem !== undefined) return sealProblem;
  if (!isRecord(jwks) || !Array.isArray(jwks.keys)) return 'jwks is missing or not {keys: [...]}';
  if (!jwks.keys.every(isRecord)) return 'jwks.keys holds a non-object';
  if (version === 2) {
    const problem = checkInclusionShape(value.checkpoint, value.inclusion, entries as { index: number }[]);
    if (problem !== undefined) return problem;
  }
  return value as unknown as AnyReceipt;
}

function checkInclusionShape(
  checkpoint: unknown,
  inclusion: unknown,
  entries: readonly { index: number }[],
): string | undefined {
  if (typeof checkpoint !== 'string' || checkpoint === '') {
    return 'checkpoint is missing or not a non-empty string';
  }
  if (!Array.isArray(inclusion)) return 'inclusion is missing or not an array';
  if (inclusion.length !== entries.length) {
    return `inclusion holds ${inclusion.length} proofs for ${entries.length} entries`;
  }
  for (const [position, item] of inclusion.entries()) {
    if (!isRecord(item)) return `inclusion[${position}] is not an object`;
    const unknownMember = Object.keys(item).find((name) => !INCLUSION_MEMBERS.has(name));
    if (unknownMember !== undefined)
      return `unknown inclusion[${position}] member ${JSON.stringify(unknownMember)}`;
    if (item.index !== entries[position]?.index) {
      return `inclusion[${position}].index is not the index of entries[${position}]`;
    }
    const { proof } = item;
    if (
      !Array.isArray(proof) ||
      !proof.every((hash) => typeof hash === 'string' && HASH_PATTERN.test(hash))
    ) {
      return `inclusion[${position}].proof is not an array of 64 lower-case hex digits`;
    }
  }
  return undefined;
}

function checkSealShape(seal: unknown): string | undefined {
  if (!isRecord(seal)) return 'seal is missing or not an object';
  const unknownMember = Object.keys(seal).find((name) => !SEAL_MEMBERS.has(name));
  if (unknownMember !== undefined) return `unknown seal member ${JSON.stringify(unknownMember)}`;
  for (const name of ['tenantId', 'intentId', 'signature'] as const) {
    const member = seal[name];
    if (typeof member !== 'string' || member === '')
      return `seal.${name} is missing or not a non-empty string`;
  }
  const { entryHashes, headIndex, headHash, issuedAt } = seal;
  if (
    !Array.isArray(entryHashes) ||
    !entryHashes.every((hash) => typeof hash === 'string' && HASH_PATTERN.test(hash))
  ) {
    return 'seal.entryHashes is not an array of 64 lower-case hex digits';
  }
  if (!isChainIndex(headIndex)) return 'seal.headIndex is not a non-negative integer';
  if (typeof headHash !== 'string' || !HASH_PATTERN.test(headHash))
    return 'seal.headHash is not 64 lower-case hex digits';
  if (!isChainTimestamp(issuedAt)) return 'seal.issuedAt is not YYYY-MM-DDTHH:mm:ss.sssZ';
  return undefined;
}

function fail(reason: ReceiptVerificationReason, detail: string): ReceiptInvalid {
  return { valid: false, reason, detail };
}
