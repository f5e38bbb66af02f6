import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const API_KEY_PREFIX = 'service_live_';
export const LEGACY_API_KEY_PREFIX = 'svc_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 62^43 > 2^256, so 32 random bytes always fit in 43 base62 digits. */
const BODY_LENGTH = 43;
const DISPLAY_PREFIX_LENGTH = 21;

/** Base62 digits of a byte string, left-padded with zeros to a fixed length. */
export function toBase62(bytes: Buffer, length: number): string {
  let value = BigInt(`0x${bytes.toString('hex') || '0'}`);
  let out = '';
  while (value > 0n) {
    out = BASE62[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out.padStart(length, '0');
}

export interface GeneratedApiKey {
  key: string;
  hash: string;
  displayPrefix: string;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A new key: `service_live_` and 43 base62 characters from 32 random bytes; returned once. */
export function generateApiKey(): GeneratedApiKey {
  const key = API_KEY_PREFIX + toBase62(randomBytes(32), BODY_LENGTH);
  return { key, hash: hashApiKey(key), displayPrefix: key.slice(0, DISPLAY_PREFIX_LENGTH) };
}

/** True when the presented credential carries one of the accepted prefixes. */
export function hasKnownPrefix(key: string): boolean {
  return key.startsWith(API_KEY_PREFIX) || key.startsWith(LEGACY_API_KEY_PREFIX);
}

/** Constant-time comparison of two secrets of any length. */
export function secretsEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return timingSafeEqual(left, right);
}
