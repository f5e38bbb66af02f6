import { constants, createPublicKey, type JsonWebKey, type KeyObject, verify } from 'node:crypto';
import type { JWK } from 'jose';
import type { KeySource } from './jwks.js';
import { isRecord, keyAlgorithm, publicPart, type SupportedAlgorithm } from './keys.js';
import { parseKid } from './kid.js';

/**
 * Shared compact-JWS machinery of the verifiers: structural splitting, key look-up in a
 * {@link KeySource}, and signature verification with the algorithm fixed by the key. Used by
 * `verifyAuthorityToken` (tokens), `verifyReceipt` (tokens and receipt seals) and
 * `verifyChainExport` (checkpoints). Nothing here is exported from the package.
 */

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** @internal A strict UTF-8 decoder: invalid byte sequences throw instead of being replaced. */
export const utf8 = new TextDecoder('utf-8', { fatal: true });

const importedKeys = new WeakMap<JWK, { alg: SupportedAlgorithm; key: KeyObject }>();
/** Smallest RSA modulus accepted (jose's rule, kept in every SDK). */
const MIN_RSA_BITS = 2048;

/** @internal A compact JWS that passed the structural checks; nothing in it is verified yet. */
export interface CompactJwsParts {
  /**
   * The decoded protected header: a JSON object with a string `alg` and a non-empty string `kid`.
   * Frozen: tokens with the same header text share one decoded header.
   */
  header: Readonly<Record<string, unknown>> & { readonly alg: string; readonly kid: string };
  /** The JWS itself. */
  compact: string;
}

/**
 * @internal
 * Splits a compact JWS and decodes its header. Returns the parts, or why the value (named `subject`
 * in the messages) is not a
 * well-formed compact JWS: not a string, longer than `maxLength`, not three non-empty canonical
 * base64url parts (an empty signature is allowed here and fails verification later), a header that
 * is not a JSON object, or a header without a string `alg` or a non-empty string `kid`.
 *
 * Only canonical base64url is accepted: otherwise several strings (differing in unused trailing
 * bits) would decode to the same bytes, and a "modified" JWS would still verify.
 *
 * @example
 * ```ts
 * const parts = splitCompactJws(token, 16_384);
 * if (typeof parts === 'string') return fail('TOKEN_MALFORMED', parts);
 * parts.header.kid; // 'acme-1700000000-ABCDEFGH'
 * ```
 */
export function splitCompactJws(
  value: unknown,
  maxLength: number,
  subject = 'the token',
): CompactJwsParts | string {
  if (typeof value !== 'string') return `${subject} is not a string`;
  if (value.length > maxLength) return `${subject} is too long`;
  // The common case in one pass: three base64url parts, header and payload non-empty. Anything
  // else takes the part-by-part path below, which names the first problem.
  if (!COMPACT_JWS.test(value)) {
    const problem = shapeProblem(value, subject);
    if (problem !== undefined) return problem;
  }
  const headerEnd = value.indexOf('.');
  const payloadEnd = value.indexOf('.', headerEnd + 1);
  const problem =
    partProblem(value, 0, headerEnd) ??
    partProblem(value, headerEnd + 1, payloadEnd) ??
    partProblem(value, payloadEnd + 1, value.length);
  if (problem !== undefined) return problem;
  const header = decodeHeader(value.slice(0, headerEnd));
  return typeof header === 'string' ? header : { header, compact: value };
}

/** Three base64url parts, the header and payload non-empty: the shape of every token minted. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Why `value` is not three non-empty canonical base64url parts: the first problem, part by part. */
function shapeProblem(value: string, subject: string): string | undefined {
  const parts = value.split('.');
  if (parts.length !== 3) return `${subject} does not have three parts`;
  const [headerPart, payloadPart] = parts as [string, string, string];
  if (headerPart === '' || payloadPart === '') return 'empty header or payload';
  let start = 0;
  for (const part of parts) {
    if (!BASE64URL.test(part)) return 'a part is not base64url';
    const problem = partProblem(value, start, start + part.length);
    if (problem !== undefined) return problem;
    start += part.length + 1;
  }
  return undefined;
}

/** Why `value[start, end)`, already known to hold base64url characters only, is not canonical base64url. */
function partProblem(value: string, start: number, end: number): string | undefined {
  const rest = (end - start) % 4;
  if (rest === 1) return 'a part is not base64url';
  if (!hasZeroPadBits(value, end, rest)) return 'a part is not canonical base64url';
  return undefined;
}

/**
 * Decoded headers by their base64url text: every token of a signing key carries the same header,
 * so it is decoded and checked once. Only headers that passed the checks are kept, frozen, and the
 * map is emptied when full, so made-up headers cannot grow it.
 */
const decodedHeaders = new Map<string, CompactJwsParts['header']>();
const MAX_DECODED_HEADERS = 64;

/** The checked protected header of `headerPart`, or why it is not one. */
function decodeHeader(headerPart: string): CompactJwsParts['header'] | string {
  const known = decodedHeaders.get(headerPart);
  if (known !== undefined) return known;
  let header: unknown;
  try {
    header = JSON.parse(utf8.decode(Buffer.from(headerPart, 'base64url')));
  } catch {
    return 'the header is not JSON';
  }
  if (!isRecord(header)) return 'the header is not a JSON object';
  if (typeof header.alg !== 'string') return 'the header has no alg';
  if (typeof header.kid !== 'string' || header.kid === '') return 'the header has no kid';
  const checked = Object.freeze(header) as CompactJwsParts['header'];
  if (decodedHeaders.size >= MAX_DECODED_HEADERS) decodedHeaders.clear();
  decodedHeaders.set(headerPart, checked);
  return checked;
}

const BASE64URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * Whether the bits a base64url text ending at `end`, of length 4n + `rest` (`rest` is not 1),
 * carries beyond its last whole byte are zero: exactly when decoding and encoding again gives the
 * same text. Two characters of a group carry one byte and 4 spare bits, three carry two bytes and 2
 * spare bits.
 */
function hasZeroPadBits(value: string, end: number, rest: number): boolean {
  if (rest === 0) return true;
  const last = BASE64URL_ALPHABET.indexOf(value.charAt(end - 1));
  return (last & (rest === 2 ? 0b1111 : 0b11)) === 0;
}

/** @internal What {@link resolveKey} found. */
export type ResolvedKey = { jwk: JWK } | { unknown: string } | { unavailable: string };

/**
 * @internal
 * Looks `kid` up in a key source. `{ jwk }` when found (and the source did not answer with a key of
 * another kid), `{ unknown }` when the kid is not in the set, `{ unavailable }` when the source
 * threw (it has no key set to consult).
 *
 * @example
 * ```ts
 * const found = await resolveKey(staticJwks({ keys }), 'acme-1700000000-ABCDEFGH');
 * if ('jwk' in found) use(found.jwk);
 * ```
 */
export async function resolveKey(source: KeySource, kid: string): Promise<ResolvedKey> {
  let jwk: JWK | undefined;
  try {
    jwk = await source.getKey(kid);
  } catch (error) {
    return { unavailable: `key source failed: ${describe(error)}` };
  }
  if (jwk === undefined || jwk === null) return { unknown: 'kid is not in the key set' };
  if (!isRecord(jwk) || (jwk.kid !== undefined && jwk.kid !== kid)) {
    return { unknown: 'the key source returned a key of another kid' };
  }
  return { jwk };
}

/**
 * @internal
 * Verifies a structurally checked compact JWS under `jwk`. The algorithm is the key's own `alg`
 * (EdDSA, RS256 or ES256, matching the key type) and the header must name exactly it, so `alg:
 * none`, HS256 keyed with the public key and any other algorithm confusion fail; an ES256
 * signature must be low-S; an RSA key must have at least 2048 bits; a header with `crit` fails (no
 * extension is understood, as in the Python and Go SDKs). Returns the verified payload bytes, or
 * why verification failed.
 *
 * The signature is checked synchronously by `node:crypto` under a key imported once per JWK object:
 * WebCrypto's `subtle.verify` would run each check on the thread pool and cost a thread round trip
 * per token (docs/performance.md).
 *
 * @example
 * ```ts
 * const checked = verifyCompactJws(parts, jwk);
 * if ('problem' in checked) return fail('SIGNATURE_VERIFICATION_FAILED', checked.problem);
 * const claims = JSON.parse(new TextDecoder().decode(checked.payload));
 * ```
 */
export function verifyCompactJws(
  parts: CompactJwsParts,
  jwk: JWK,
): { payload: Uint8Array; alg: SupportedAlgorithm } | { problem: string } {
  const bound = keyAlgorithm(jwk);
  if ('problem' in bound) return { problem: `unusable key: ${bound.problem}` };
  if (parts.header.alg !== bound.alg) {
    return { problem: `header alg ${JSON.stringify(parts.header.alg)} is not the key's ${bound.alg}` };
  }
  if (parts.header.crit !== undefined) return { problem: 'the header has crit: no extension is understood' };
  if (bound.alg === 'ES256' && hasHighS(parts.compact)) {
    return { problem: 'the ES256 signature is not in low-S form' };
  }
  let key: KeyObject;
  try {
    key = importKey(jwk, bound.alg);
  } catch (error) {
    return { problem: `unusable key: ${describe(error)}` };
  }
  const signedEnd = parts.compact.lastIndexOf('.');
  const signingInput = Buffer.from(parts.compact.slice(0, signedEnd), 'latin1');
  const signature = Buffer.from(parts.compact.slice(signedEnd + 1), 'base64url');
  let valid: boolean;
  try {
    valid = checkSignature(bound.alg, key, signingInput, signature);
  } catch (error) {
    return { problem: `signature check failed: ${describe(error)}` };
  }
  if (!valid) return { problem: 'signature check failed: signature verification failed' };
  const payloadPart = parts.compact.slice(parts.compact.indexOf('.') + 1, signedEnd);
  return { payload: Buffer.from(payloadPart, 'base64url'), alg: bound.alg };
}

function checkSignature(alg: SupportedAlgorithm, key: KeyObject, data: Buffer, signature: Buffer): boolean {
  switch (alg) {
    case 'EdDSA':
      return verify(null, data, key, signature);
    case 'ES256':
      // JWS carries r || s (64 bytes), not DER.
      return signature.length === 64 && verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature);
    case 'RS256':
      return verify('sha256', data, { key, padding: constants.RSA_PKCS1_PADDING }, signature);
  }
}

/** Half the order of the P-256 group. */
const P256_HALF_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n >> 1n;

/**
 * Whether an ES256 JWS carries a high S. For every ECDSA signature (r, s), (r, n - s) verifies too;
 * the service mints only the low one (s ≤ n/2), so a token has exactly one valid encoding, as it
 * has exactly one canonical base64url (docs/decisions.md). A signature that is not 64 bytes is left
 * to jose, which refuses it.
 */
function hasHighS(compact: string): boolean {
  const signature = Buffer.from(compact.slice(compact.lastIndexOf('.') + 1), 'base64url');
  if (signature.length !== 64) return false;
  return BigInt(`0x${signature.subarray(32).toString('hex')}`) > P256_HALF_ORDER;
}

/** The public key of `jwk` for `alg`, imported once per JWK object; throws when it is unusable. */
function importKey(jwk: JWK, alg: SupportedAlgorithm): KeyObject {
  const cached = importedKeys.get(jwk);
  if (cached !== undefined && cached.alg === alg) return cached.key;
  const key = createPublicKey({ key: publicPart(jwk) as JsonWebKey, format: 'jwk' });
  const details = key.asymmetricKeyDetails;
  const fits =
    alg === 'RS256'
      ? key.asymmetricKeyType === 'rsa' && (details?.modulusLength ?? 0) >= MIN_RSA_BITS
      : alg === 'ES256'
        ? key.asymmetricKeyType === 'ec' && details?.namedCurve === 'prime256v1'
        : key.asymmetricKeyType === 'ed25519';
  if (!fits) {
    throw new Error(
      alg === 'RS256' ? `RS256 requires an RSA key of ${MIN_RSA_BITS} bits or more` : `not an ${alg} key`,
    );
  }
  // A failed import throws before this line, so a transient failure is not cached.
  importedKeys.set(jwk, { alg, key });
  return key;
}

/**
 * @internal
 * The message of an error, or its string form.
 *
 * @example
 * ```ts
 * describe(new Error('boom')); // 'boom'
 * describe(42); // '42'
 * ```
 */
export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** @internal What {@link verifySignedStatement} checks a statement JWS against. */
export interface SignedStatementExpectation {
  /** The header's `typ`, required verbatim (`authority-receipt-seal+jws`, `authority-checkpoint+jws`). */
  typ: string;
  /** The tenant whose key must have signed: the kid's tenant prefix must be exactly this. */
  tenantId: string;
  /** When given, the header's kid must be exactly this (a checkpoint names its kid). */
  kid?: string;
  /** The exact payload text the JWS must carry (the JCS of the statement's other fields). */
  payload: string;
  /** The pinned keys. */
  keys: KeySource;
}

/**
 * @internal
 * Verifies a signed statement of the service (a receipt seal or a checkpoint): a compact JWS with
 * header `{alg, typ, kid}` whose payload is exactly `expected.payload`, signed by a pinned key of
 * `expected.tenantId` with the algorithm fixed by that key. `{ ok: true }`, `{ problem }` when the
 * statement does not verify, `{ unavailable }` when the key source threw.
 *
 * @example
 * ```ts
 * const checked = await verifySignedStatement(seal.signature, {
 *   typ: 'authority-receipt-seal+jws', tenantId: 'acme', payload: canonicalJson(fields), keys,
 * });
 * if (!('ok' in checked)) return fail('SEAL_SIGNATURE_INVALID', checked.problem ?? checked.unavailable);
 * ```
 */
export async function verifySignedStatement(
  jws: unknown,
  expected: SignedStatementExpectation,
): Promise<{ ok: true } | { problem: string } | { unavailable: string }> {
  const parts = splitCompactJws(jws, Number.MAX_SAFE_INTEGER, 'the signature');
  if (typeof parts === 'string') return { problem: parts };
  const { kid, typ } = parts.header;
  if (typ !== expected.typ) return { problem: `header typ ${JSON.stringify(typ)} is not ${expected.typ}` };
  if (expected.kid !== undefined && kid !== expected.kid)
    return { problem: 'header kid is not the named kid' };
  const parsedKid = parseKid(kid);
  if (parsedKid === undefined) return { problem: 'kid is not of the form <tenantId>-<seconds>-<base32>' };
  if (parsedKid.tenantId !== expected.tenantId) return { problem: 'kid belongs to another tenant' };
  const found = await resolveKey(expected.keys, kid);
  if ('unavailable' in found) return found;
  if ('unknown' in found) return { problem: `${found.unknown} (kid ${kid})` };
  const verified = verifyCompactJws(parts, found.jwk);
  if ('problem' in verified) return verified;
  let text: string;
  try {
    text = utf8.decode(verified.payload);
  } catch {
    return { problem: 'the signed payload is not UTF-8' };
  }
  if (text !== expected.payload) return { problem: 'the signed payload is not the JCS of the other fields' };
  return { ok: true };
}
