import {
  ED25519_SIGNATURE_SIZE,
  ed25519Sign,
  ed25519Verify,
  privateKeyFromSeed,
  publicKeyFromBytes,
  rawPublicKey,
} from './ed25519.js';
import type { Ed25519SigningKey } from './ed25519-note-keys.js';
import { TransparencyFormatError } from './errors.js';
import { checkNoteText, type NoteSignature, type NoteSigner, type NoteVerifier } from './note.js';
import {
  COSIGNATURE_V1_KEY_TYPE,
  formatVerifierKey,
  noteKeyId,
  parseSignerKey,
  parseVerifierKey,
  type VerifierKey,
} from './note-keys.js';

/** The size of a cosignature v1 after its key ID: an 8-byte time and a 64-byte Ed25519 signature. */
export const COSIGNATURE_V1_SIZE = 8 + ED25519_SIGNATURE_SIZE;

const UTF8 = new TextEncoder();

/**
 * The message a `tlog-cosignature` v1 signs: `cosignature/v1\ntime <unix seconds>\n` followed by
 * the whole checkpoint body (its final newline included, no signature line).
 *
 * @example
 * ```ts
 * import { cosignatureMessage } from '@authority-runtime/sdk';
 *
 * cosignatureMessage('example.com/log\n1\nAAAA…=\n', 1679315147);
 * // 'cosignature/v1\ntime 1679315147\nexample.com/log\n1\nAAAA…=\n'
 * ```
 */
export function cosignatureMessage(body: string, time: number): string {
  if (!Number.isSafeInteger(time) || time < 0)
    throw new RangeError('a cosignature time is a non-negative integer');
  return `cosignature/v1\ntime ${time}\n${body}`;
}

/**
 * The time (unix seconds) a cosignature v1 states; throws {@link TransparencyFormatError}
 * (`COSIGNATURE_MALFORMED`) unless the signature is 72 bytes with a time of at most 2^53 - 1.
 *
 * @example
 * ```ts
 * import { cosignatureTime } from '@authority-runtime/sdk';
 *
 * new Date(cosignatureTime(outcome.verified[1]) * 1000).toISOString();
 * ```
 */
export function cosignatureTime(signature: NoteSignature | Uint8Array): number {
  const bytes = signature instanceof Uint8Array ? signature : signature.signature;
  if (bytes.length !== COSIGNATURE_V1_SIZE) {
    throw new TransparencyFormatError(
      'COSIGNATURE_MALFORMED',
      `a cosignature is ${COSIGNATURE_V1_SIZE} bytes`,
    );
  }
  const time = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(0);
  if (time > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new TransparencyFormatError(
      'COSIGNATURE_MALFORMED',
      'the cosignature time is beyond 2^53 - 1 seconds',
    );
  }
  return Number(time);
}

/**
 * A witness's cosigner (type 0x04): signs a checkpoint body at the current time of `clock`
 * (milliseconds since the epoch, like `Date.now`). Takes a signer key text or the name and seed.
 *
 * @example
 * ```ts
 * import { cosigner, formatSignatureLine } from '@authority-runtime/sdk';
 *
 * const witness = cosigner(readFileSync(keyFile, 'utf8').trim(), Date.now);
 * const line = formatSignatureLine({ name: witness.name, keyId: witness.keyId, signature: witness.sign(body) });
 * ```
 */
export function cosigner(
  key: string | Ed25519SigningKey,
  clock: () => number,
): NoteSigner & { verifierKey: string } {
  const { name, seed } = typeof key === 'string' ? parseSignerKey(key) : key;
  const privateKey = privateKeyFromSeed(seed);
  const publicKey = rawPublicKey(privateKey);
  return {
    name,
    keyId: noteKeyId(name, COSIGNATURE_V1_KEY_TYPE, publicKey),
    verifierKey: formatVerifierKey(name, COSIGNATURE_V1_KEY_TYPE, publicKey),
    sign(text) {
      checkNoteText(text);
      const time = Math.floor(clock() / 1000);
      if (!Number.isSafeInteger(time) || time < 1)
        throw new RangeError('the clock gives no positive unix time');
      const signature = ed25519Sign(privateKey, UTF8.encode(cosignatureMessage(text, time)));
      const bytes = new Uint8Array(COSIGNATURE_V1_SIZE);
      new DataView(bytes.buffer).setBigUint64(0, BigInt(time));
      bytes.set(signature, 8);
      return bytes;
    },
  };
}

/**
 * A verifier of cosignatures v1 from a witness's verifier key (type 0x04); throws
 * {@link TransparencyFormatError} (`KEY_MALFORMED`) for a key of another type. Pass it to
 * {@link verifySignedNote} with the log's key to check which witnesses cosigned a checkpoint.
 *
 * @example
 * ```ts
 * import { cosignatureVerifier, ed25519NoteVerifier, verifySignedNote } from '@authority-runtime/sdk';
 *
 * const outcome = verifySignedNote(note, [ed25519NoteVerifier(logKey), ...witnessKeys.map(cosignatureVerifier)]);
 * ```
 */
export function cosignatureVerifier(key: string | VerifierKey): NoteVerifier {
  const parsed = typeof key === 'string' ? parseVerifierKey(key.replace(/\n$/, '')) : key;
  if (parsed.type !== COSIGNATURE_V1_KEY_TYPE) {
    throw new TransparencyFormatError('KEY_MALFORMED', `${parsed.name} is not a cosignature (0x04) key`);
  }
  const publicKey = publicKeyFromBytes(parsed.publicKey);
  return {
    name: parsed.name,
    keyId: parsed.keyId,
    verify(text, signature) {
      let time: number;
      try {
        time = cosignatureTime(signature);
      } catch {
        return false;
      }
      const message = UTF8.encode(cosignatureMessage(text, time));
      return ed25519Verify(publicKey, message, signature.subarray(8));
    },
  };
}
