import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';

/** @internal Sizes of Ed25519 keys and signatures (RFC 8032). */
export const ED25519_SEED_SIZE = 32;
export const ED25519_PUBLIC_KEY_SIZE = 32;
export const ED25519_SIGNATURE_SIZE = 64;

// DER prefixes of PKCS #8 and SPKI for Ed25519 (RFC 8410): the raw key follows them.
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** @internal An Ed25519 private key from its 32-byte seed. */
export function privateKeyFromSeed(seed: Uint8Array): KeyObject {
  if (seed.length !== ED25519_SEED_SIZE) throw new RangeError('an Ed25519 seed is 32 bytes');
  return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

/** @internal An Ed25519 public key object from its 32 raw bytes. */
export function publicKeyFromBytes(publicKey: Uint8Array): KeyObject {
  if (publicKey.length !== ED25519_PUBLIC_KEY_SIZE) throw new RangeError('an Ed25519 public key is 32 bytes');
  return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
}

/** @internal The 32 raw bytes of the public key of an Ed25519 private key. */
export function rawPublicKey(privateKey: KeyObject): Uint8Array {
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return new Uint8Array(spki.subarray(SPKI_PREFIX.length));
}

/** @internal An Ed25519 signature (64 bytes) of `message`. */
export function ed25519Sign(privateKey: KeyObject, message: Uint8Array): Uint8Array {
  return new Uint8Array(sign(null, message, privateKey));
}

/** @internal Whether `signature` is a valid Ed25519 signature of `message` under `publicKey`. */
export function ed25519Verify(publicKey: KeyObject, message: Uint8Array, signature: Uint8Array): boolean {
  return signature.length === ED25519_SIGNATURE_SIZE && verify(null, message, publicKey, signature);
}
