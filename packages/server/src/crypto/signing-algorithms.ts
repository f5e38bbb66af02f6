import {
  createPrivateKey,
  createPublicKey,
  generateKeyPair,
  type JsonWebKey,
  type KeyObject,
  randomBytes,
  sign,
  verify,
} from 'node:crypto';
import { promisify } from 'node:util';

export const SIGNING_ALGS = ['EdDSA', 'RS256', 'ES256'] as const;
export type SigningAlg = (typeof SIGNING_ALGS)[number];

export function isSigningAlg(value: string): value is SigningAlg {
  return (SIGNING_ALGS as readonly string[]).includes(value);
}

const generate = promisify(generateKeyPair);

export interface GeneratedKeyPair {
  privateKeyPem: string;
  publicJwk: JsonWebKey;
}

/**
 * A fresh key pair: Ed25519 (default), RSA (4096 bits unless `rsaModulusLength` says otherwise) or
 * P-256. Asynchronous: RSA takes a while.
 */
export async function generateSigningKeyPair(
  alg: SigningAlg,
  options: { rsaModulusLength?: number } = {},
): Promise<GeneratedKeyPair> {
  const pair =
    alg === 'EdDSA'
      ? await generate('ed25519')
      : alg === 'RS256'
        ? await generate('rsa', { modulusLength: options.rsaModulusLength ?? 4096 })
        : await generate('ec', { namedCurve: 'P-256' });
  return {
    privateKeyPem: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicJwk: pair.publicKey.export({ format: 'jwk' }),
  };
}

export function privateKeyFromPem(pem: string): KeyObject {
  return createPrivateKey(pem);
}

/** The public key of a JWK, checked to be of the kind the algorithm needs. Throws otherwise. */
export function publicKeyFromJwk(alg: SigningAlg, jwk: JsonWebKey): KeyObject {
  const key = createPublicKey({ key: jwk, format: 'jwk' });
  const type = key.asymmetricKeyType;
  const details = key.asymmetricKeyDetails;
  if (alg === 'EdDSA' && type !== 'ed25519') throw new Error('EdDSA needs an Ed25519 (OKP) key');
  if (alg === 'ES256' && (type !== 'ec' || details?.namedCurve !== 'prime256v1'))
    throw new Error('ES256 needs a P-256 key');
  if (alg === 'RS256' && (type !== 'rsa' || (details?.modulusLength ?? 0) < 2048)) {
    throw new Error('RS256 needs an RSA key of at least 2048 bits');
  }
  return key;
}

/** The order of the P-256 group. */
const P256_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

const scalarOf = (bytes: Buffer) => BigInt(`0x${bytes.toString('hex')}`);

/**
 * ES256 signatures in low-S form (docs/decisions.md): (r, s) and (r, n - s) both verify, so of the
 * two the service always writes the one with s ≤ n/2 and verifiers accept only that one, which
 * leaves every token a single valid encoding. Other algorithms and malformed signatures pass
 * through unchanged.
 */
export function toLowS(alg: SigningAlg, signature: Buffer): Buffer {
  if (alg !== 'ES256' || signature.length !== 64) return signature;
  const s = scalarOf(signature.subarray(32));
  if (s <= P256_ORDER >> 1n) return signature;
  const low = Buffer.from((P256_ORDER - s).toString(16).padStart(64, '0'), 'hex');
  return Buffer.concat([signature.subarray(0, 32), low]);
}

/**
 * Signs JWS signing input: raw Ed25519, RSASSA-PKCS1-v1_5 SHA-256, or ECDSA P-256 in JWS (r||s),
 * low-S form. The callback form of `crypto.sign` runs the signature on libuv's thread pool, so the
 * event loop serves other requests meanwhile (an Ed25519 signature costs it about half of its time
 * signed in place; docs/performance.md).
 */
export function signJwsInput(alg: SigningAlg, key: KeyObject, input: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, signature: Buffer) =>
      error ? reject(error) : resolve(toLowS(alg, signature));
    if (alg === 'EdDSA') sign(null, input, key, done);
    else if (alg === 'RS256') sign('sha256', input, key, done);
    else sign('sha256', input, { key, dsaEncoding: 'ieee-p1363' }, done);
  });
}

export function verifyJwsInput(alg: SigningAlg, key: KeyObject, input: Buffer, signature: Buffer): boolean {
  try {
    if (alg === 'EdDSA') return verify(null, input, key, signature);
    if (alg === 'RS256') return verify('sha256', input, key, signature);
    if (!toLowS(alg, signature).equals(signature)) return false;
    return verify('sha256', input, { key, dsaEncoding: 'ieee-p1363' }, signature);
  } catch {
    return false;
  }
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** kid `<tenantId>-<unix seconds>-<8 random base32 chars>` (contract §5). */
export function newKid(tenantId: string, nowMs: number): string {
  const bytes = randomBytes(8);
  let suffix = '';
  for (const byte of bytes) suffix += BASE32[byte % 32];
  return `${tenantId}-${Math.floor(nowMs / 1000)}-${suffix}`;
}

export function kidPattern(tenantId: string): RegExp {
  return new RegExp(`^${tenantId.replace(/[-]/g, '\\-')}-\\d{1,12}-[A-Z2-7]{8}$`);
}
