import {
  ed25519Sign,
  ed25519Verify,
  privateKeyFromSeed,
  publicKeyFromBytes,
  rawPublicKey,
} from './ed25519.js';
import { TransparencyFormatError } from './errors.js';
import type { NoteSigner, NoteVerifier } from './note.js';
import {
  ED25519_KEY_TYPE,
  formatVerifierKey,
  noteKeyId,
  parseSignerKey,
  parseVerifierKey,
  type VerifierKey,
} from './note-keys.js';

/** An Ed25519 key to sign with: the key's name (a log's origin) and its 32-byte seed. */
export interface Ed25519SigningKey {
  readonly name: string;
  readonly seed: Uint8Array;
}

const UTF8 = new TextEncoder();

/**
 * A signer of type 0x01 (Ed25519 over the note text): how a log signs its checkpoints. Takes a
 * signer key text (see {@link parseSignerKey}) or the name and seed.
 *
 * @example
 * ```ts
 * import { ed25519NoteSigner, formatCheckpoint, signNote } from '@authority-runtime/sdk';
 *
 * const signer = ed25519NoteSigner({ name: origin, seed });
 * const note = signNote(formatCheckpoint({ origin, size, rootHash }), [signer]);
 * ```
 */
export function ed25519NoteSigner(key: string | Ed25519SigningKey): NoteSigner & { verifierKey: string } {
  const { name, seed } = typeof key === 'string' ? parseSignerKey(key) : key;
  const privateKey = privateKeyFromSeed(seed);
  const publicKey = rawPublicKey(privateKey);
  return {
    name,
    keyId: noteKeyId(name, ED25519_KEY_TYPE, publicKey),
    verifierKey: formatVerifierKey(name, ED25519_KEY_TYPE, publicKey),
    sign: (text) => ed25519Sign(privateKey, UTF8.encode(text)),
  };
}

/**
 * A verifier of type 0x01 from a verifier key text or a parsed one; throws
 * {@link TransparencyFormatError} (`KEY_MALFORMED`) for a key of another type.
 *
 * @example
 * ```ts
 * import { ed25519NoteVerifier } from '@authority-runtime/sdk';
 *
 * const logKey = ed25519NoteVerifier(await (await fetch(`${base}/.well-known/authority/acme/log-key`)).text());
 * ```
 */
export function ed25519NoteVerifier(key: string | VerifierKey): NoteVerifier {
  const parsed = typeof key === 'string' ? parseVerifierKey(key.replace(/\n$/, '')) : key;
  if (parsed.type !== ED25519_KEY_TYPE) {
    throw new TransparencyFormatError('KEY_MALFORMED', `${parsed.name} is not an Ed25519 (0x01) note key`);
  }
  const publicKey = publicKeyFromBytes(parsed.publicKey);
  return {
    name: parsed.name,
    keyId: parsed.keyId,
    verify: (text, signature) => ed25519Verify(publicKey, UTF8.encode(text), signature),
  };
}
