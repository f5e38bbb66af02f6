import { randomBytes } from 'node:crypto';

const NONCE_BYTES = 16;
/** Random bytes drawn from the CSPRNG at once: 256 nonces. */
const POOL_BYTES = 4096;

let pool = Buffer.alloc(0);
let offset = 0;

/**
 * 128 random bits as base64url (22 characters), every byte used once. The bytes come from the
 * CSPRNG 4 KiB at a time, as `crypto.randomUUID` batches its own: a synchronous `randomBytes(16)`
 * per token cost a decision about 5 µs of its event loop (bench/tokens.ts measures both).
 */
export function randomNonce(): string {
  if (offset + NONCE_BYTES > pool.length) {
    pool = randomBytes(POOL_BYTES);
    offset = 0;
  }
  const nonce = pool.toString('base64url', offset, offset + NONCE_BYTES);
  offset += NONCE_BYTES;
  return nonce;
}
