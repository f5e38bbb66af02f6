import { createHash, randomBytes } from 'node:crypto';
import { ED25519_PUBLIC_KEY_SIZE, ED25519_SEED_SIZE, privateKeyFromSeed, rawPublicKey } from './ed25519.js';
import { decodeBase64, encodeBase64 } from './encoding.js';
import { TransparencyFormatError } from './errors.js';

/** Signature type of an Ed25519 note signature (C2SP `signed-note`): a log's checkpoint key. */
export const ED25519_KEY_TYPE = 0x01;
/** Signature type of a timestamped Ed25519 cosignature (C2SP `tlog-cosignature` v1): a witness key. */
export const COSIGNATURE_V1_KEY_TYPE = 0x04;

/** The two signature types this module signs and verifies. */
export type NoteKeyType = typeof ED25519_KEY_TYPE | typeof COSIGNATURE_V1_KEY_TYPE;

/** A parsed verifier key (`vkey`): who signs, and with which public key. */
export interface VerifierKey {
  readonly name: string;
  /** The 32-bit key ID, see {@link noteKeyId}. */
  readonly keyId: number;
  readonly type: NoteKeyType;
  /** The 32-byte Ed25519 public key. */
  readonly publicKey: Uint8Array;
}

/** A parsed signer key: the name and the 32-byte Ed25519 seed, never to be shown or logged. */
export interface SignerKey {
  readonly name: string;
  readonly seed: Uint8Array;
  readonly publicKey: Uint8Array;
}

const KEY_ID_HEX = /^[0-9a-f]{8}$/;
const NAME_FORBIDDEN = /[\p{White_Space}\p{Cc}+\p{Cs}]/u;

/**
 * Whether `name` can name a key (C2SP `signed-note`): non-empty, no Unicode space, no plus, and no
 * control character or lone surrogate (a note may not carry them).
 *
 * @example
 * ```ts
 * import { isValidKeyName } from '@authority-runtime/sdk';
 *
 * isValidKeyName('audit.example.com/audit/acme'); // true
 * isValidKeyName('two words'); // false
 * ```
 */
export function isValidKeyName(name: string): boolean {
  return typeof name === 'string' && name !== '' && !NAME_FORBIDDEN.test(name);
}

function requireName(name: string): void {
  if (!isValidKeyName(name)) {
    throw new TransparencyFormatError(
      'KEY_MALFORMED',
      'a key name must be non-empty, without spaces or plus',
    );
  }
}

/**
 * The key ID of a note key: the first 4 bytes, big-endian, of SHA-256(name ‖ 0x0A ‖ type ‖ public
 * key), as a 32-bit unsigned integer.
 *
 * @example
 * ```ts
 * import { ED25519_KEY_TYPE, formatKeyId, noteKeyId } from '@authority-runtime/sdk';
 *
 * formatKeyId(noteKeyId(origin, ED25519_KEY_TYPE, publicKey)); // e.g. '530d903a'
 * ```
 */
export function noteKeyId(name: string, type: NoteKeyType, publicKey: Uint8Array): number {
  const digest = createHash('sha256')
    .update(name, 'utf8')
    .update(new Uint8Array([0x0a, type]))
    .update(publicKey)
    .digest();
  return digest.readUInt32BE(0);
}

/** A key ID as 8 lower-case hex digits. */
export function formatKeyId(keyId: number): string {
  return keyId.toString(16).padStart(8, '0');
}

/**
 * The verifier key text `<name>+<key ID as 8 hex digits>+<base64(type ‖ public key)>`.
 *
 * @example
 * ```ts
 * import { ED25519_KEY_TYPE, formatVerifierKey } from '@authority-runtime/sdk';
 *
 * formatVerifierKey('example.com/foo', ED25519_KEY_TYPE, publicKey); // 'example.com/foo+530d903a+Aeky…'
 * ```
 */
export function formatVerifierKey(name: string, type: NoteKeyType, publicKey: Uint8Array): string {
  requireName(name);
  if (publicKey.length !== ED25519_PUBLIC_KEY_SIZE) throw new RangeError('an Ed25519 public key is 32 bytes');
  const keyData = encodeBase64(new Uint8Array([type, ...publicKey]));
  return `${name}+${formatKeyId(noteKeyId(name, type, publicKey))}+${keyData}`;
}

/**
 * Parses a verifier key of type 0x01 (Ed25519) or 0x04 (cosignature v1). Throws
 * {@link TransparencyFormatError} (`KEY_MALFORMED`) on anything else, including a key ID that does
 * not match the name and key.
 *
 * @example
 * ```ts
 * import { parseVerifierKey } from '@authority-runtime/sdk';
 *
 * const { name, keyId, type } = parseVerifierKey('example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k');
 * ```
 */
export function parseVerifierKey(text: string): VerifierKey {
  if (typeof text !== 'string') throw new TransparencyFormatError('KEY_MALFORMED', 'a verifier key is text');
  const [name = '', hex = '', ...rest] = text.split('+');
  requireName(name);
  if (!KEY_ID_HEX.test(hex)) {
    throw new TransparencyFormatError('KEY_MALFORMED', 'the key ID must be 8 lower-case hex digits');
  }
  const data = decodeBase64(rest.join('+'), 'KEY_MALFORMED', 'the key data');
  const type = data[0];
  if (type !== ED25519_KEY_TYPE && type !== COSIGNATURE_V1_KEY_TYPE) {
    throw new TransparencyFormatError(
      'KEY_MALFORMED',
      `signature type ${type === undefined ? 'missing' : `0x${type.toString(16).padStart(2, '0')}`} is not supported`,
    );
  }
  const publicKey = data.subarray(1);
  if (publicKey.length !== ED25519_PUBLIC_KEY_SIZE) {
    throw new TransparencyFormatError('KEY_MALFORMED', 'an Ed25519 public key is 32 bytes');
  }
  const keyId = noteKeyId(name, type, publicKey);
  if (formatKeyId(keyId) !== hex) {
    throw new TransparencyFormatError('KEY_MALFORMED', `key ID ${hex} does not match the name and key`);
  }
  return { name, keyId, type, publicKey: new Uint8Array(publicKey) };
}

/**
 * The signer key text of Go's `golang.org/x/mod/sumdb/note`:
 * `PRIVATE+KEY+<name>+<Ed25519 key ID>+<base64(0x01 ‖ 32-byte seed)>`. Secret: store it like a
 * password. The same key signs checkpoints (type 0x01) or cosignatures (type 0x04).
 *
 * @example
 * ```ts
 * import { formatSignerKey } from '@authority-runtime/sdk';
 * import { randomBytes } from 'node:crypto';
 *
 * const skey = formatSignerKey('witness.example/w1', randomBytes(32));
 * ```
 */
export function formatSignerKey(name: string, seed: Uint8Array): string {
  requireName(name);
  const publicKey = rawPublicKey(privateKeyFromSeed(seed));
  const keyId = formatKeyId(noteKeyId(name, ED25519_KEY_TYPE, publicKey));
  return `PRIVATE+KEY+${name}+${keyId}+${encodeBase64(new Uint8Array([ED25519_KEY_TYPE, ...seed]))}`;
}

/**
 * Parses a signer key written by {@link formatSignerKey} or Go's `note.GenerateKey`; throws
 * {@link TransparencyFormatError} (`KEY_MALFORMED`) on anything else. The message never quotes
 * the key.
 *
 * @example
 * ```ts
 * import { parseSignerKey } from '@authority-runtime/sdk';
 *
 * const { name, publicKey } = parseSignerKey(readFileSync(keyFile, 'utf8').trim());
 * ```
 */
export function parseSignerKey(text: string): SignerKey {
  if (typeof text !== 'string' || !text.startsWith('PRIVATE+KEY+')) {
    throw new TransparencyFormatError('KEY_MALFORMED', 'a signer key starts with PRIVATE+KEY+');
  }
  const [name = '', hex = '', ...rest] = text.slice('PRIVATE+KEY+'.length).split('+');
  requireName(name);
  if (!KEY_ID_HEX.test(hex)) {
    throw new TransparencyFormatError('KEY_MALFORMED', 'the key ID must be 8 lower-case hex digits');
  }
  const data = decodeBase64(rest.join('+'), 'KEY_MALFORMED', 'the signer key data');
  if (data[0] !== ED25519_KEY_TYPE || data.length !== 1 + ED25519_SEED_SIZE) {
    throw new TransparencyFormatError('KEY_MALFORMED', 'the signer key data is not 0x01 and a 32-byte seed');
  }
  const seed = new Uint8Array(data.subarray(1));
  const publicKey = rawPublicKey(privateKeyFromSeed(seed));
  if (formatKeyId(noteKeyId(name, ED25519_KEY_TYPE, publicKey)) !== hex) {
    throw new TransparencyFormatError('KEY_MALFORMED', `key ID ${hex} does not match the name and key`);
  }
  return { name, seed, publicKey };
}

/**
 * A new signer key named `name`, from 32 bytes of `crypto.randomBytes`.
 *
 * @example
 * ```ts
 * import { generateSignerKey } from '@authority-runtime/sdk';
 *
 * writeFileSync(keyFile, `${generateSignerKey('witness.example/w1')}\n`, { mode: 0o600, flag: 'wx' });
 * ```
 */
export function generateSignerKey(name: string): string {
  return formatSignerKey(name, randomBytes(ED25519_SEED_SIZE));
}
