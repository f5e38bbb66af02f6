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
import { type AuthorityTokenClaims, verifyTokenSignature } from './verify.js';
import type { Receipt, ReceiptSeal } from './wire/audit.js';

/** The JWS `typ` of a receipt seal. */
export const RECEIPT_SEAL_TYP = 'authority-receipt-seal+jws';

/**
 * The seal of a receipt: a signed statement of the chain head that also binds the intent's
 * entries. `signature` is a compact JWS over exactly `JCS(seal without signature)`. An intent's
 * receipt is `GET /intent/:id/receipt` (docs/audit-chain.md, "Receipt"). Both are the wire
 * contract's types.
 */
export type { Receipt, ReceiptSeal };

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
}

/** A receipt that passed every check. */
export interface ReceiptValid {
  valid: true;
  /** The verified receipt, a fresh copy of the input. */
  receipt: Receipt;
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
 * 1. `RECEIPT_MALFORMED`: not JSON; `receiptVersion` not `1`; a member missing, of the wrong type,
 *    or unknown (at the top level and in the seal); no entries; an entry without its documented
 *    members and types; a hash that is not 64 lower-case hex digits; a timestamp not
 *    `YYYY-MM-DDTHH:mm:ss.sssZ`; `jwks` not `{keys: [objects]}`.
 * 2. `TENANT_MISMATCH`: `tenantId` is not `options.expectedTenantId` (when given).
 * 3. `ENTRY_HASH_MISMATCH`: an entry's `entryHash` is not `sha256_hex(JCS(entry without entryHash))`.
 * 4. `ENTRY_MISMATCH`: an entry's `tenantId` or `intentId` is not the receipt's; the entries'
 *    indices are not strictly increasing; entry 0's `previousHash` is not 64 zeros; or an entry
 *    directly following another in the chain (index + 1) does not carry that entry's hash as
 *    `previousHash`.
 * 5. `SEAL_MISMATCH`: the seal's `tenantId` / `intentId` are not the receipt's; `entryHashes` is not
 *    the entries' hashes in order; an entry's index is above `headIndex`; the entry at `headIndex`
 *    (when the receipt holds it) is not `headHash`.
 * 6. `SEAL_SIGNATURE_INVALID`: `seal.signature` is not a compact JWS with header `typ`
 *    `authority-receipt-seal+jws` and a kid of this tenant (`<tenantId>-<seconds>-<base32>`) that is
 *    pinned; it does not verify with the pinned key's own algorithm (EdDSA, RS256 or ES256, never the
 *    header's choice); or its payload is not exactly `JCS(seal without signature)`.
 * 7. `TOKEN_INVALID` (the detail says which check): an `APPROVED` receipt without a token; a token
 *    that fails the structural, kid (this tenant, pinned) or signature checks of
 *    {@link verifyAuthorityToken} (algorithm fixed by the key, `iss` = `service-authority`, `aud` =
 *    its own `adapterId`); claims `intentId` / `tenantId` not the receipt's; claim `decision` not
 *    `APPROVED`; or a token on a receipt whose `decision` is not `APPROVED`. Expiry is **not**
 *    checked (receipts are verified long after their tokens expired) and no nonce is consumed.
 * 8. `EMBEDDED_JWKS_MISMATCH`: a key of the embedded `jwks` has no kid, is listed twice, is not
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
 * const result = await verifyReceipt(await readFile('receipt.json', 'utf8'), {
 *   jwks,
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

  // 1. Structure, on a private copy so that nothing can change under the checks.
  const copy = jsonCopy(receipt);
  if (copy === undefined) return fail('RECEIPT_MALFORMED', 'the receipt is not JSON');
  const checked = checkReceiptShape(copy);
  if (typeof checked === 'string') return fail('RECEIPT_MALFORMED', checked);
  const { entries, seal } = checked;

  // 2. Tenant.
  if (expectedTenantId !== undefined && checked.tenantId !== expectedTenantId) {
    return fail('TENANT_MISMATCH', 'the receipt belongs to another tenant');
  }

  // 3. Each entry's hash.
  for (const [position, entry] of entries.entries()) {
    if (auditEntryHash(entry) !== entry.entryHash) {
      return fail(
        'ENTRY_HASH_MISMATCH',
        `entries[${position}] (index ${entry.index}) does not hash to its entryHash`,
      );
    }
  }

  // 4. Each entry belongs to this tenant and intent; chain order and links where visible.
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

  // 5. The seal binds exactly these entries, at or before the head.
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

  // 6. The seal's signature, under a pinned key of the tenant.
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

  // 7. The token: signed by a pinned key, about this intent, APPROVED. Expiry is not checked.
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

  // 8. The embedded key set, informational, must not contradict the pinned keys.
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

function checkReceiptShape(value: unknown): Receipt | string {
  if (!isRecord(value)) return 'the receipt is not a JSON object';
  const unknownMember = Object.keys(value).find((name) => !RECEIPT_MEMBERS.has(name));
  if (unknownMember !== undefined) return `unknown member ${JSON.stringify(unknownMember)}`;
  if (value.receiptVersion !== 1) return 'receiptVersion is not 1';
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
  return value as unknown as Receipt;
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
