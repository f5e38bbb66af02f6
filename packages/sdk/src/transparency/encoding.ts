import { TransparencyFormatError, type TransparencyFormatErrorCode } from './errors.js';

/** The size in bytes of every hash of the tree (SHA-256). */
export const HASH_SIZE = 32;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const HEX_HASH = /^[0-9a-f]{64}$/;
const DECIMAL = /^(?:0|[1-9][0-9]*)$/;

/**
 * @internal
 * Decodes standard base64 (RFC 4648 §4, with padding) and refuses anything else, including an
 * encoding that is not the canonical one of its bytes (non-zero padding bits).
 */
export function decodeBase64(text: string, code: TransparencyFormatErrorCode, what: string): Uint8Array {
  if (!BASE64.test(text)) throw new TransparencyFormatError(code, `${what} is not standard base64`);
  const bytes = Buffer.from(text, 'base64');
  if (bytes.toString('base64') !== text) {
    throw new TransparencyFormatError(code, `${what} is not the canonical base64 of its bytes`);
  }
  return new Uint8Array(bytes);
}

/** @internal Standard base64 with padding. */
export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/**
 * @internal
 * Parses an ASCII decimal with no leading zeroes (`0` alone is zero) up to 2^53 - 1, the largest
 * integer a JavaScript number holds exactly.
 */
export function parseDecimal(text: string, code: TransparencyFormatErrorCode, what: string): number {
  if (!DECIMAL.test(text)) {
    throw new TransparencyFormatError(code, `${what} is not a decimal number without leading zeroes`);
  }
  const value = Number(text);
  if (!Number.isSafeInteger(value)) {
    throw new TransparencyFormatError(
      code,
      `${what} exceeds 2^53 - 1, the largest size this verifier handles`,
    );
  }
  return value;
}

/**
 * @internal
 * Whether `text` holds an ASCII control character (below U+0020), newline included unless
 * `allowNewline`.
 */
export function hasControlCharacter(text: string, allowNewline: boolean): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 && !(allowNewline && code === 0x0a)) return true;
  }
  return false;
}

/** @internal Whether `value` is a 32-byte array. */
export function isHash(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array && value.length === HASH_SIZE;
}

/** @internal Throws a `RangeError` naming `what` unless `value` is a 32-byte array. */
export function assertHash(value: unknown, what: string): asserts value is Uint8Array {
  if (!isHash(value)) throw new RangeError(`${what} must be a ${HASH_SIZE}-byte Uint8Array`);
}

/** @internal Throws a `RangeError` naming `what` unless `value` is an integer in [min, 2^53 - 1]. */
export function assertSize(value: number, what: string, min = 0): void {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`${what} must be an integer from ${min} to 2^53 - 1, not ${String(value)}`);
  }
}

/** @internal Byte equality for public values (hashes, keys): not constant time. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * A hash as the proof routes write it: 64 lower-case hex digits.
 *
 * @example
 * ```ts
 * import { emptyTreeHash, hashToHex } from '@authority-runtime/sdk';
 *
 * hashToHex(emptyTreeHash()); // 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
 * ```
 */
export function hashToHex(hash: Uint8Array): string {
  assertHash(hash, 'hash');
  return Buffer.from(hash.buffer, hash.byteOffset, hash.byteLength).toString('hex');
}

/**
 * Parses 64 lower-case hex digits into a 32-byte hash; throws {@link TransparencyFormatError}
 * (`HASH_MALFORMED`) on anything else.
 *
 * @example
 * ```ts
 * import { hashFromHex } from '@authority-runtime/sdk';
 *
 * const proof = body.proof.map((hex: string) => hashFromHex(hex));
 * ```
 */
export function hashFromHex(text: string): Uint8Array {
  if (typeof text !== 'string' || !HEX_HASH.test(text)) {
    throw new TransparencyFormatError('HASH_MALFORMED', 'a hash must be 64 lower-case hex digits');
  }
  return new Uint8Array(Buffer.from(text, 'hex'));
}

/**
 * A hash as checkpoints and the witness protocol write it: standard base64 (44 characters).
 *
 * @example
 * ```ts
 * import { emptyTreeHash, hashToBase64 } from '@authority-runtime/sdk';
 *
 * hashToBase64(emptyTreeHash()); // '47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='
 * ```
 */
export function hashToBase64(hash: Uint8Array): string {
  assertHash(hash, 'hash');
  return encodeBase64(hash);
}

/**
 * Parses the canonical standard base64 of 32 bytes; throws {@link TransparencyFormatError}
 * (`HASH_MALFORMED`) on anything else.
 *
 * @example
 * ```ts
 * import { hashFromBase64 } from '@authority-runtime/sdk';
 *
 * hashFromBase64('47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=').length; // 32
 * ```
 */
export function hashFromBase64(text: string): Uint8Array {
  const bytes = decodeBase64(text, 'HASH_MALFORMED', 'a hash');
  if (bytes.length !== HASH_SIZE) {
    throw new TransparencyFormatError(
      'HASH_MALFORMED',
      `a hash must be ${HASH_SIZE} bytes, not ${bytes.length}`,
    );
  }
  return bytes;
}
