// The fixed signing keys of the shared test vectors (sdks/test-vectors). They live, private parts
// included, in keys.json beside this file, so that regenerating the vectors signs with the same keys
// (EdDSA and RS256 signatures are then byte-identical; ES256 signatures are randomized by design).
// Test-only keys: nothing outside these vectors trusts them. ES256 signatures are low-S, normalized
// by the service's own toLowS, as the service mints them (docs/decisions.md, "Hardening").
import {
  constants,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type JsonWebKey,
  type KeyObject,
  sign,
  verify,
} from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { toLowS } from '../../../server/src/crypto/signing-algorithms.js';

export type Alg = 'EdDSA' | 'ES256' | 'RS256';
export const ALGS: readonly Alg[] = ['EdDSA', 'ES256', 'RS256'];

/** A key of the vectors: its kid, a signer over JWS signing input, and its public JWK as published. */
export interface VectorKey {
  alg: Alg;
  kid: string;
  privateKey: KeyObject;
  publicJwk: JsonWebKey;
}

interface KeySpec {
  alg: Alg;
  kid: string;
  modulusLength?: number;
}

interface StoredKey extends KeySpec {
  privateJwk: JsonWebKey;
}

const PREFIX: Record<Alg, string> = { EdDSA: 'ED', ES256: 'ES', RS256: 'RS' };

/** Every key the vectors use, by name. */
function specs(): Record<string, KeySpec> {
  const out: Record<string, KeySpec> = {};
  for (const [offset, alg] of ALGS.entries()) {
    const p = PREFIX[alg];
    // ACTIVE or PREVIOUS keys of tenant acme: published in its JWKS.
    out[`${alg}/active`] = { alg, kid: `acme-170000000${offset}-${p}ACTIVE` };
    // RETIRED keys: only in the archive, so they verify receipts but never tokens.
    out[`${alg}/retired`] = { alg, kid: `acme-169000000${offset}-${p}RETIRE` };
    // Another tenant's key, listed in the set on purpose: the kid prefix check must refuse it.
    out[`${alg}/globex`] = { alg, kid: `globex-170000000${offset}-${p}ACTIVE` };
    // A key nobody published, used under the real ACTIVE kid (a forgery).
    out[`${alg}/impostor`] = { alg, kid: `acme-170000000${offset}-${p}ACTIVE` };
  }
  // RSA below 2048 bits: published, but no verifier may accept a signature made with it.
  out['RS256/weak'] = { alg: 'RS256', kid: 'acme-1700000003-RSWEAKKE', modulusLength: 1024 };
  // A key of tenant acme that no verifier pins (receipts).
  out['EdDSA/unpinned'] = { alg: 'EdDSA', kid: 'acme-1700000004-UNPINNED' };
  return out;
}

function generate(spec: KeySpec): JsonWebKey {
  const pair =
    spec.alg === 'EdDSA'
      ? generateKeyPairSync('ed25519')
      : spec.alg === 'ES256'
        ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
        : generateKeyPairSync('rsa', { modulusLength: spec.modulusLength ?? 2048 });
  return pair.privateKey.export({ format: 'jwk' });
}

function toVectorKey(stored: StoredKey): VectorKey {
  const privateKey = createPrivateKey({ key: stored.privateJwk, format: 'jwk' });
  const publicJwk = createPublicKey(privateKey).export({ format: 'jwk' });
  return {
    alg: stored.alg,
    kid: stored.kid,
    privateKey,
    publicJwk: { ...publicJwk, kid: stored.kid, alg: stored.alg, use: 'sig' },
  };
}

/**
 * Loads the keys from `file`, adding new keys to the file for names it does not hold yet.
 *
 * @example
 * ```ts
 * const keys = loadVectorKeys(new URL('./keys.json', import.meta.url));
 * keys['EdDSA/active']?.kid; // 'acme-1700000000-EDACTIVE'
 * ```
 */
export function loadVectorKeys(file: URL): Record<string, VectorKey> {
  const wanted = specs();
  const stored: Record<string, StoredKey> = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, StoredKey>)
    : {};
  let changed = false;
  for (const [name, spec] of Object.entries(wanted)) {
    const known = stored[name];
    if (known !== undefined && known.kid === spec.kid && known.alg === spec.alg) continue;
    stored[name] = { ...spec, privateJwk: generate(spec) };
    changed = true;
  }
  if (changed) writeFileSync(file, `${JSON.stringify(stored, null, 2)}\n`);
  const out: Record<string, VectorKey> = {};
  for (const name of Object.keys(wanted)) {
    const entry = stored[name];
    if (entry === undefined) throw new Error(`missing vector key ${name}`);
    out[name] = toVectorKey(entry);
  }
  return out;
}

/**
 * The key of that name; throws when the generator asks for one that does not exist.
 *
 * @example
 * ```ts
 * const active = key(keys, 'EdDSA/active');
 * ```
 */
export function key(keys: Record<string, VectorKey>, name: string): VectorKey {
  const found = keys[name];
  if (found === undefined) throw new Error(`no vector key ${name}`);
  return found;
}

/** A raw `r || s` ECDSA P-256 signature as OpenSSL makes it: S is high about half of the time. */
function ecdsaSignature(vectorKey: VectorKey, input: Buffer): Buffer {
  return sign('sha256', input, { key: vectorKey.privateKey, dsaEncoding: 'ieee-p1363' });
}

/**
 * Signs JWS signing input with `alg` (which need not be the key's: algorithm confusion vectors
 * sign RS256 keys under PS256). ES256 signatures are raw `r || s`, as JWS requires, in low-S form.
 *
 * @example
 * ```ts
 * const signature = signInput(key(keys, 'EdDSA/active'), 'EdDSA', Buffer.from('header.payload'));
 * ```
 */
export function signInput(vectorKey: VectorKey, alg: string, input: Buffer): Buffer {
  switch (alg) {
    case 'EdDSA':
      return sign(null, input, vectorKey.privateKey);
    case 'ES256':
      return toLowS('ES256', ecdsaSignature(vectorKey, input));
    case 'RS256':
      return sign('sha256', input, vectorKey.privateKey);
    case 'PS256':
      return sign('sha256', input, {
        key: vectorKey.privateKey,
        padding: constants.RSA_PKCS1_PSS_PADDING,
        saltLength: 32,
      });
    default:
      throw new Error(`the generator cannot sign ${alg}`);
  }
}

/**
 * Both ES256 signatures of `input` that share one `r`: `high` = (r, s) with s > n/2, a correct
 * ECDSA signature that verifiers must refuse, and `low` = (r, n - s), its low-S twin, the one the
 * service writes. ECDSA signing is randomized, so this signs until S comes out high (each try
 * does with probability 1/2) and lets the service's toLowS make the twin.
 *
 * @example
 * ```ts
 * const { high, low } = signatureTwins(key(keys, 'ES256/active'), Buffer.from('header.payload'));
 * ```
 */
export function signatureTwins(vectorKey: VectorKey, input: Buffer): { high: Buffer; low: Buffer } {
  for (let attempt = 0; attempt < 128; attempt += 1) {
    const high = ecdsaSignature(vectorKey, input);
    const low = toLowS('ES256', high);
    if (low.equals(high)) continue;
    const options = { key: createPublicKey(vectorKey.privateKey), dsaEncoding: 'ieee-p1363' } as const;
    if (!verify('sha256', input, options, high) || !verify('sha256', input, options, low)) {
      throw new Error('an ECDSA twin does not verify');
    }
    return { high, low };
  }
  throw new Error('no high-S ECDSA signature in 128 tries');
}
