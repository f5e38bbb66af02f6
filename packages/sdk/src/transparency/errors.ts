/**
 * What a transparency parser refused. Stable and machine-readable; the message says which part of
 * the input is wrong.
 *
 * - `HASH_MALFORMED`: not a 32-byte hash in the expected encoding (64 lower-case hex digits, or 44
 *   characters of canonical standard base64).
 * - `NOTE_MALFORMED`: not a C2SP signed note (UTF-8, no control character but newline, a text ending
 *   in a newline, an empty line, then one or more `— <name> <base64>` lines).
 * - `KEY_MALFORMED`: not a verifier key `<name>+<8 hex>+<base64(type ‖ key)>` or signer key
 *   `PRIVATE+KEY+<name>+<8 hex>+<base64(0x01 ‖ seed)>`, or its key ID does not match.
 * - `CHECKPOINT_MALFORMED`: not a `tlog-checkpoint` body (origin, decimal size, base64 root hash).
 * - `COSIGNATURE_MALFORMED`: not a `tlog-cosignature` v1 signature (key ID, 8-byte time, 64 bytes).
 * - `WITNESS_REQUEST_MALFORMED`: not a `tlog-witness` add-checkpoint request body.
 * - `WITNESS_RESPONSE_MALFORMED`: a witness answer that the protocol does not allow.
 */
export const TRANSPARENCY_FORMAT_ERRORS = [
  'HASH_MALFORMED',
  'NOTE_MALFORMED',
  'KEY_MALFORMED',
  'CHECKPOINT_MALFORMED',
  'COSIGNATURE_MALFORMED',
  'WITNESS_REQUEST_MALFORMED',
  'WITNESS_RESPONSE_MALFORMED',
] as const;

/** One of {@link TRANSPARENCY_FORMAT_ERRORS}. */
export type TransparencyFormatErrorCode = (typeof TRANSPARENCY_FORMAT_ERRORS)[number];

/**
 * Thrown by every transparency parser on input it refuses, and never anything else on bad bytes.
 *
 * @example
 * ```ts
 * import { parseCheckpoint, TransparencyFormatError } from '@authority-runtime/sdk';
 *
 * try {
 *   parseCheckpoint('example.com/log\n012\nAAAA\n');
 * } catch (error) {
 *   if (error instanceof TransparencyFormatError) console.log(error.code); // 'CHECKPOINT_MALFORMED'
 * }
 * ```
 */
export class TransparencyFormatError extends Error {
  override readonly name = 'TransparencyFormatError';

  constructor(
    readonly code: TransparencyFormatErrorCode,
    message: string,
  ) {
    super(message);
  }
}
