import { NonceStoreError } from './errors.js';
import type { KeySource } from './jwks.js';
import { describe, resolveKey, splitCompactJws, utf8, verifyCompactJws } from './jws.js';
import { isRecord } from './keys.js';
import { parseKid } from './kid.js';
import type { NonceStore } from './nonce-store.js';
import {
  TOKEN_VERIFICATION_REASONS,
  type TokenVerificationReason,
  type VerificationFailureReason,
} from './reasons.js';
import { AUTHORITY_ISSUER } from './wire/constants.js';
import type { DecisionTokenClaims } from './wire/tokens.js';

export { AUTHORITY_ISSUER };

/** Longest lifetime a token may declare, `exp - iat`, in seconds. */
export const MAX_TOKEN_TTL_SECONDS = 300;

/** Default tolerated clock difference between the service and the verifier, in seconds. */
export const DEFAULT_CLOCK_SKEW_SECONDS = 5;

/**
 * Longer tokens are rejected as `TOKEN_MALFORMED` before any decoding work. 64 KiB holds every
 * token the service mints: the longest claim, `proposedAction`, is at most 4,000 characters, about
 * 24 KB of JSON when each is a control character written `\u00XX`, so 33 KB of base64url.
 */
export const MAX_TOKEN_LENGTH = 65_536;

/** The claims of a verified Authority Decision Token: the wire contract's `DecisionTokenClaims`. */
export type AuthorityTokenClaims = DecisionTokenClaims;

/** What the verifier checks the token against: the verifying adapter's own identity. */
export interface ExpectedTokenContext {
  /** The tenant this adapter serves. Also the prefix every acceptable `kid` must carry. */
  tenantId: string;
  /** The verifying adapter's id; the token's `adapterId` (and `aud`) must equal it. */
  adapterId: string;
  /** The system the adapter is about to act on; the token's `targetSystem` must equal it. */
  targetSystem: string;
}

/** Options of {@link verifyAuthorityToken}. */
export interface VerifyAuthorityTokenOptions {
  /** Where public keys come from: {@link staticJwks} or {@link remoteJwks} (or your own {@link KeySource}). */
  jwks: KeySource;
  /** The adapter's identity the token must have been minted for. */
  expected: ExpectedTokenContext;
  /** When given, only a token signed under exactly this kid is accepted. */
  pinnedKid?: string;
  /**
   * Consumes the token's nonce once every other check passed. Without a store the nonce is not
   * checked (the result says `nonceConsumed: false`): an adapter that executes MUST pass one.
   */
  nonceStore?: NonceStore;
  /** Time source in ms since the epoch; defaults to `Date.now`. */
  clock?: () => number;
  /** Tolerated clock difference in seconds, 0 to 300 (default 5). */
  clockSkewSeconds?: number;
}

/** A token that passed every check. */
export interface AuthorityTokenValid {
  valid: true;
  claims: AuthorityTokenClaims;
  /** `true` when a nonce store recorded the nonce as used by this call; `false` without a store. */
  nonceConsumed: boolean;
}

/** A rejected token: `reason` is stable and machine-readable, `detail` is for logs only. */
export interface AuthorityTokenInvalid {
  valid: false;
  reason: VerificationFailureReason;
  detail: string;
}

/** The outcome of {@link verifyAuthorityToken}. */
export type AuthorityTokenVerification = AuthorityTokenValid | AuthorityTokenInvalid;

const STRING_CLAIMS = [
  'intentId',
  'tenantId',
  'adapterId',
  'adapterTarget',
  'targetSystem',
  'proposedAction',
  'decision',
  'issuedAt',
  'expiresAt',
  'nonce',
] as const;

/**
 * Verifies an Authority Decision Token offline, as a downstream adapter must before executing.
 *
 * Returns a discriminated result and never throws for a bad token (a non-string token, garbage, a
 * forged or expired token all give `{valid: false, reason}`). It throws a `TypeError` only for
 * programmer misuse: missing or ill-typed options.
 *
 * Checks run in the contract's order and the first failure is reported:
 *
 * 1. `TOKEN_MALFORMED`: longer than {@link MAX_TOKEN_LENGTH}; not three base64url parts (canonical
 *    encoding, no padding); header not a JSON object; no string `alg` or non-empty `kid` in it.
 * 2. `KID_MISMATCH`: kid not of the form `<tenantId>-<unix seconds>-<8 base32 chars>`, its tenant
 *    prefix not `expected.tenantId`, not equal to `pinnedKid` (when given), or unknown to the key
 *    source (never published, or RETIRED and therefore no longer in the set).
 *    (`KEY_SOURCE_UNAVAILABLE` instead when the key source has no key set at all.)
 * 3. `SIGNATURE_VERIFICATION_FAILED`: the algorithm is the key's own `alg` (EdDSA, RS256 or ES256)
 *    and the header must name exactly it, so `alg: none`, HS256 keyed with the public key and any
 *    other algorithm confusion fail here; then the jose signature check; then `iss` must be
 *    `service-authority` and `aud` a string equal to the token's own `adapterId` claim.
 *    **Choice:** the claim set is decoded and type-checked only after the signature verified; a
 *    payload that is not a JSON object, or lacks a required claim or has one of the wrong type
 *    (`iat`/`exp` must be numbers, and `nbf` when present, the others strings), is reported as `TOKEN_MALFORMED` at that
 *    point — it is the earlier reason in the contract's order, so it wins over `iss`/`aud` checks.
 *    Before the signature, nothing of the payload is interpreted. `iss` and `aud` are compared by
 *    value, not type-checked: a missing or non-string one (an array `aud` too) fails here.
 * 4. `TOKEN_TTL_EXCEEDS_LIMIT`: `exp - iat > 300`.
 * 5. `TOKEN_EXPIRED`: now ≥ `exp` + skew.
 * 6. `TOKEN_NOT_YET_VALID`: `nbf` (when present) or `iat` later than now + skew.
 * 7. `TOKEN_DECISION_INVALID`: `decision` is not `APPROVED`.
 * 8. `TOKEN_TENANT_MISMATCH`, 9. `TOKEN_ADAPTER_MISMATCH`, 10. `TOKEN_TARGET_MISMATCH`: the claims
 *    `tenantId`, `adapterId`, `targetSystem` against `expected`.
 * 11. `NONCE_ALREADY_CONSUMED`: the nonce store says the nonce was used. The nonce is consumed only
 *    here, after everything else passed, with `expiresAtMs = (exp + skew) * 1000`. When the store
 *    throws, the token is rejected with `NONCE_STORE_UNAVAILABLE` (or, for a
 *    {@link NonceStoreError} of kind `rejected`, the store's own reason when it is a known one, such
 *    as `TENANT_KILL_SWITCH`). A store that cannot confirm never yields `valid: true`.
 *
 * @example
 * ```ts
 * import { InMemoryNonceStore, remoteJwks, verifyAuthorityToken } from '@authority-runtime/sdk';
 *
 * const jwks = remoteJwks('https://authority.example.com/.well-known/authority/acme/jwks.json');
 * const nonceStore = new InMemoryNonceStore();
 *
 * const result = await verifyAuthorityToken(request.headers['x-authority-token'], {
 *   jwks,
 *   nonceStore,
 *   expected: { tenantId: 'acme', adapterId: 'external', targetSystem: 'acme/api' },
 * });
 * if (!result.valid) {
 *   return reject(result.reason); // e.g. 'TOKEN_EXPIRED'
 * }
 * await execute(result.claims.proposedAction);
 * ```
 */
export async function verifyAuthorityToken(
  token: string,
  options: VerifyAuthorityTokenOptions,
): Promise<AuthorityTokenVerification> {
  const settings = checkOptions(options);
  const { expected } = settings;

  // 1–3. Structure, key id, signature, issuer, audience.
  const checked = await verifyTokenSignature(token, settings.jwks, expected.tenantId, settings.pinnedKid);
  if (!checked.valid) return checked;
  const { claims } = checked;

  // 4. Lifetime.
  const now = settings.clock();
  if (typeof now !== 'number' || !Number.isFinite(now))
    throw new TypeError('clock must return a finite number');
  const skew = settings.clockSkewSeconds;
  if (claims.exp - claims.iat > MAX_TOKEN_TTL_SECONDS) {
    return fail('TOKEN_TTL_EXCEEDS_LIMIT', `exp - iat is ${claims.exp - claims.iat} s`);
  }
  // 5. Expiry.
  if (now >= (claims.exp + skew) * 1000) return fail('TOKEN_EXPIRED', 'the token expired');
  // 6. Not yet valid.
  if (claims.nbf !== undefined && claims.nbf * 1000 > now + skew * 1000) {
    return fail('TOKEN_NOT_YET_VALID', 'nbf lies in the future beyond the allowed skew');
  }
  if (claims.iat * 1000 > now + skew * 1000) {
    return fail('TOKEN_NOT_YET_VALID', 'iat lies in the future beyond the allowed skew');
  }

  // 7–10. Decision and binding to this adapter.
  if (claims.decision !== 'APPROVED') return fail('TOKEN_DECISION_INVALID', 'decision is not APPROVED');
  if (claims.tenantId !== expected.tenantId) return fail('TOKEN_TENANT_MISMATCH', 'token tenantId differs');
  if (claims.adapterId !== expected.adapterId)
    return fail('TOKEN_ADAPTER_MISMATCH', 'token adapterId differs');
  if (claims.targetSystem !== expected.targetSystem) {
    return fail('TOKEN_TARGET_MISMATCH', 'token targetSystem differs');
  }

  // 11. Single use, last.
  const verifiedClaims = claims as AuthorityTokenClaims;
  if (settings.nonceStore === undefined) return { valid: true, claims: verifiedClaims, nonceConsumed: false };
  let firstUse: boolean;
  try {
    firstUse =
      (await settings.nonceStore.consume(claims.nonce, (claims.exp + skew) * 1000, {
        token,
        adapterId: expected.adapterId,
        targetSystem: expected.targetSystem,
      })) === true;
  } catch (error) {
    if (error instanceof NonceStoreError && error.kind === 'rejected') {
      const remote = error.remoteReason;
      if (isRemoteReason(remote)) return fail(remote, error.message);
    }
    return fail('NONCE_STORE_UNAVAILABLE', `nonce store could not confirm: ${describe(error)}`);
  }
  if (!firstUse) return fail('NONCE_ALREADY_CONSUMED', 'the nonce was already consumed');
  return { valid: true, claims: verifiedClaims, nonceConsumed: true };
}

interface Settings {
  jwks: KeySource;
  expected: ExpectedTokenContext;
  pinnedKid: string | undefined;
  nonceStore: NonceStore | undefined;
  clock: () => number;
  clockSkewSeconds: number;
}

function checkOptions(options: VerifyAuthorityTokenOptions): Settings {
  if (!isRecord(options)) throw new TypeError('verifyAuthorityToken: options are required');
  const { jwks, expected, pinnedKid, nonceStore, clock, clockSkewSeconds } = options;
  if (!isRecord(jwks) || typeof jwks.getKey !== 'function') {
    throw new TypeError('verifyAuthorityToken: options.jwks must be a key source (staticJwks or remoteJwks)');
  }
  if (!isRecord(expected)) throw new TypeError('verifyAuthorityToken: options.expected is required');
  for (const name of ['tenantId', 'adapterId', 'targetSystem'] as const) {
    const value: unknown = expected[name];
    if (typeof value !== 'string' || value === '') {
      throw new TypeError(`verifyAuthorityToken: options.expected.${name} must be a non-empty string`);
    }
  }
  if (pinnedKid !== undefined && (typeof pinnedKid !== 'string' || pinnedKid === '')) {
    throw new TypeError('verifyAuthorityToken: options.pinnedKid must be a non-empty string');
  }
  if (nonceStore !== undefined && (!isRecord(nonceStore) || typeof nonceStore.consume !== 'function')) {
    throw new TypeError('verifyAuthorityToken: options.nonceStore must have a consume method');
  }
  if (clock !== undefined && typeof clock !== 'function') {
    throw new TypeError('verifyAuthorityToken: options.clock must be a function');
  }
  const skew = clockSkewSeconds ?? DEFAULT_CLOCK_SKEW_SECONDS;
  if (typeof skew !== 'number' || !Number.isFinite(skew) || skew < 0 || skew > MAX_TOKEN_TTL_SECONDS) {
    throw new TypeError('verifyAuthorityToken: options.clockSkewSeconds must be between 0 and 300');
  }
  return {
    jwks,
    expected: {
      tenantId: expected.tenantId,
      adapterId: expected.adapterId,
      targetSystem: expected.targetSystem,
    },
    pinnedKid,
    nonceStore,
    clock: clock ?? Date.now,
    clockSkewSeconds: skew,
  };
}

/** @internal A token whose signature, issuer and audience verified; see {@link verifyTokenSignature}. */
export interface SignedTokenClaims {
  valid: true;
  /** The type-checked claims; `decision` is not yet checked against `APPROVED`. */
  claims: DecodedClaims;
  /** The kid the token was verified under. */
  kid: string;
}

/**
 * @internal
 * Checks 1 to 3 of {@link verifyAuthorityToken}, shared with `verifyReceipt`: structure
 * (`TOKEN_MALFORMED`), key id (`KID_MISMATCH`: form, tenant prefix `tenantId`, `pinnedKid`, known to
 * `jwks`; `KEY_SOURCE_UNAVAILABLE` when the source throws), then the signature with the algorithm
 * fixed by the key, the claim types (`TOKEN_MALFORMED`) and `iss` / `aud`
 * (`SIGNATURE_VERIFICATION_FAILED`). Lifetime, decision and the adapter binding are left to the
 * caller. Never throws for a bad token.
 *
 * @example
 * ```ts
 * const checked = await verifyTokenSignature(token, staticJwks({ keys }), 'acme');
 * if (!checked.valid) return checked; // { valid: false, reason, detail }
 * checked.claims.intentId;
 * ```
 */
export async function verifyTokenSignature(
  token: unknown,
  jwks: KeySource,
  tenantId: string,
  pinnedKid?: string,
): Promise<SignedTokenClaims | AuthorityTokenInvalid> {
  // 1. Structure.
  const parts = splitCompactJws(token, MAX_TOKEN_LENGTH);
  if (typeof parts === 'string') return fail('TOKEN_MALFORMED', parts);
  const { kid } = parts.header;

  // 2. Key id.
  const parsedKid = parseKid(kid);
  if (parsedKid === undefined)
    return fail('KID_MISMATCH', 'kid is not of the form <tenantId>-<seconds>-<base32>');
  if (parsedKid.tenantId !== tenantId) return fail('KID_MISMATCH', 'kid belongs to another tenant');
  if (pinnedKid !== undefined && kid !== pinnedKid) return fail('KID_MISMATCH', 'kid is not the pinned kid');
  const found = await resolveKey(jwks, kid);
  if ('unavailable' in found) return fail('KEY_SOURCE_UNAVAILABLE', found.unavailable);
  if ('unknown' in found) return fail('KID_MISMATCH', found.unknown);

  // 3. Signature, issuer, audience. The algorithm is the key's, never the header's choice.
  const verified = verifyCompactJws(parts, found.jwk);
  if ('problem' in verified) return fail('SIGNATURE_VERIFICATION_FAILED', verified.problem);
  const claims = decodeClaims(verified.payload);
  if (typeof claims === 'string') return fail('TOKEN_MALFORMED', claims);
  if (claims.iss !== AUTHORITY_ISSUER)
    return fail('SIGNATURE_VERIFICATION_FAILED', 'iss is not service-authority');
  if (claims.aud !== claims.adapterId) {
    return fail('SIGNATURE_VERIFICATION_FAILED', 'aud is not the token adapterId');
  }
  return { valid: true, claims, kid };
}

/** @internal The claims after their types were checked, before their values were. */
export type DecodedClaims = Omit<AuthorityTokenClaims, 'decision' | 'iss' | 'aud'> & {
  decision: string;
  iss: unknown;
  aud: unknown;
};

/** Decodes the verified payload and checks the claim types; returns why it is malformed otherwise. */
function decodeClaims(payload: Uint8Array): DecodedClaims | string {
  let claims: unknown;
  try {
    claims = JSON.parse(utf8.decode(payload));
  } catch {
    return 'the payload is not JSON';
  }
  if (!isRecord(claims)) return 'the payload is not a JSON object';
  for (const name of STRING_CLAIMS) {
    if (typeof claims[name] !== 'string') return `claim ${name} is missing or not a string`;
  }
  if (claims.nonce === '') return 'claim nonce is empty';
  for (const name of ['iat', 'exp'] as const) {
    const value = claims[name];
    if (typeof value !== 'number' || !Number.isFinite(value))
      return `claim ${name} is missing or not a number`;
  }
  if (claims.nbf !== undefined && (typeof claims.nbf !== 'number' || !Number.isFinite(claims.nbf))) {
    return 'claim nbf is not a number';
  }
  return claims as DecodedClaims;
}

/** Reasons a remote store (the service's consume endpoint) may legitimately report. */
function isRemoteReason(value: unknown): value is TokenVerificationReason | 'TENANT_KILL_SWITCH' {
  return (
    value === 'TENANT_KILL_SWITCH' ||
    (typeof value === 'string' && (TOKEN_VERIFICATION_REASONS as readonly string[]).includes(value))
  );
}

function fail(reason: VerificationFailureReason, detail: string): AuthorityTokenInvalid {
  return { valid: false, reason, detail };
}
