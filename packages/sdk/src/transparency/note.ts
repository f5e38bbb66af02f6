import { decodeBase64, encodeBase64, hasControlCharacter } from './encoding.js';
import { TransparencyFormatError } from './errors.js';
import { formatKeyId, isValidKeyName } from './note-keys.js';

/** One signature line of a note: who signed (name and key ID) and the signature bytes after the ID. */
export interface NoteSignature {
  readonly name: string;
  readonly keyId: number;
  readonly signature: Uint8Array;
}

/** A parsed signed note: its text (ending in a newline) and its signatures, in order. */
export interface SignedNote {
  readonly text: string;
  readonly signatures: readonly NoteSignature[];
}

/** Signs note texts with one key; see {@link ed25519NoteSigner} and {@link cosigner}. */
export interface NoteSigner {
  readonly name: string;
  readonly keyId: number;
  /** The signature bytes (without the key ID) over the note text. */
  sign(text: string): Uint8Array;
}

/** Checks signatures of one key; see {@link ed25519NoteVerifier} and {@link cosignatureVerifier}. */
export interface NoteVerifier {
  readonly name: string;
  readonly keyId: number;
  /** Whether `signature` (the bytes after the key ID) is this key's signature of `text`. */
  verify(text: string, signature: Uint8Array): boolean;
}

/** The most signature lines a note may carry here (the format asks verifiers to accept 16 at least). */
export const MAX_NOTE_SIGNATURES = 100;

const SIGNATURE_PREFIX = '\u2014 ';
const LONE_SURROGATE = /\p{Cs}/u;
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function malformed(message: string): TransparencyFormatError {
  return new TransparencyFormatError('NOTE_MALFORMED', message);
}

function decodeNote(note: string | Uint8Array): string {
  if (typeof note === 'string') {
    if (LONE_SURROGATE.test(note)) throw malformed('the note is not valid Unicode text');
    return note;
  }
  if (!(note instanceof Uint8Array)) throw malformed('a note is text');
  try {
    return UTF8.decode(note);
  } catch {
    throw malformed('the note is not valid UTF-8');
  }
}

function checkText(text: string): void {
  if (hasControlCharacter(text, true))
    throw malformed('the note holds a control character other than newline');
}

/**
 * @internal
 * Parses one signature line, `— <name> <base64(key ID ‖ signature)>`, without its newline.
 */
export function parseSignatureLine(line: string): NoteSignature {
  if (!line.startsWith(SIGNATURE_PREFIX))
    throw malformed('a signature line starts with an em dash and a space');
  const rest = line.slice(SIGNATURE_PREFIX.length);
  const space = rest.indexOf(' ');
  if (space < 0) throw malformed('a signature line is a name, a space and a signature');
  const name = rest.slice(0, space);
  if (!isValidKeyName(name)) throw malformed('a signature line names no valid key');
  const bytes = decodeBase64(rest.slice(space + 1), 'NOTE_MALFORMED', `the signature of ${name}`);
  if (bytes.length < 5) throw malformed(`the signature of ${name} is too short`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { name, keyId: view.getUint32(0), signature: bytes.slice(4) };
}

/**
 * The text of one signature line, newline included: `— <name> <base64(key ID ‖ signature)>\n`.
 *
 * @example
 * ```ts
 * import { formatSignatureLine } from '@authority-runtime/sdk';
 *
 * response.end(cosignatures.map(formatSignatureLine).join(''));
 * ```
 */
export function formatSignatureLine(signature: NoteSignature): string {
  if (!isValidKeyName(signature.name)) throw malformed('a signature names no valid key');
  const bytes = new Uint8Array(4 + signature.signature.length);
  new DataView(bytes.buffer).setUint32(0, signature.keyId);
  bytes.set(signature.signature, 4);
  return `${SIGNATURE_PREFIX}${signature.name} ${encodeBase64(bytes)}\n`;
}

/**
 * Parses a C2SP signed note without checking any signature; throws {@link TransparencyFormatError}
 * (`NOTE_MALFORMED`) unless it is valid UTF-8 with no control character but newline, a text ending
 * in a newline, an empty line (the last one of the note), then 1 to {@link MAX_NOTE_SIGNATURES}
 * signature lines each ending in a newline.
 *
 * @example
 * ```ts
 * import { parseSignedNote } from '@authority-runtime/sdk';
 *
 * const { text, signatures } = parseSignedNote(await response.text());
 * ```
 */
export function parseSignedNote(note: string | Uint8Array): SignedNote {
  const decoded = decodeNote(note);
  checkText(decoded);
  const split = decoded.lastIndexOf('\n\n');
  if (split < 0) throw malformed('no empty line separates the text from the signatures');
  const block = decoded.slice(split + 2);
  if (block === '' || !block.endsWith('\n'))
    throw malformed('the signature lines must each end in a newline');
  const lines = block.slice(0, -1).split('\n');
  if (lines.length > MAX_NOTE_SIGNATURES) throw malformed(`more than ${MAX_NOTE_SIGNATURES} signatures`);
  return { text: decoded.slice(0, split + 1), signatures: lines.map(parseSignatureLine) };
}

/**
 * The note text followed by an empty line and the signature lines.
 *
 * @example
 * ```ts
 * import { formatSignedNote, parseSignedNote } from '@authority-runtime/sdk';
 *
 * const note = parseSignedNote(text);
 * formatSignedNote({ ...note, signatures: [...note.signatures, ...cosignatures] });
 * ```
 */
export function formatSignedNote(note: SignedNote): string {
  checkNoteText(note.text);
  return `${note.text}\n${note.signatures.map(formatSignatureLine).join('')}`;
}

/** @internal Throws unless `text` can be the text of a note. */
export function checkNoteText(text: string): void {
  if (typeof text !== 'string' || !text.endsWith('\n')) throw malformed('a note text ends in a newline');
  if (LONE_SURROGATE.test(text)) throw malformed('the note text is not valid Unicode text');
  checkText(text);
}

/**
 * Signs `text` with each signer and returns the note, the signatures of `keep` (signatures already
 * on the note, e.g. the log's) first.
 *
 * @example
 * ```ts
 * import { ed25519NoteSigner, signNote } from '@authority-runtime/sdk';
 *
 * const note = signNote(body, [ed25519NoteSigner(logKey)]);
 * ```
 */
export function signNote(
  text: string,
  signers: readonly NoteSigner[],
  keep: readonly NoteSignature[] = [],
): string {
  checkNoteText(text);
  const fresh = signers.map((signer) => ({
    name: signer.name,
    keyId: signer.keyId,
    signature: signer.sign(text),
  }));
  return formatSignedNote({ text, signatures: [...keep, ...fresh] });
}

/**
 * Why {@link verifySignedNote} refused a note:
 *
 * - `NOTE_MALFORMED`: not a signed note (see {@link parseSignedNote}).
 * - `SIGNATURE_INVALID`: a signature line names a trusted key (name and key ID) but does not verify.
 * - `NO_TRUSTED_SIGNATURE`: no signature line names a trusted key.
 */
export const NOTE_VERIFICATION_REASONS = [
  'NOTE_MALFORMED',
  'SIGNATURE_INVALID',
  'NO_TRUSTED_SIGNATURE',
] as const;

/** One of {@link NOTE_VERIFICATION_REASONS}. */
export type NoteVerificationReason = (typeof NOTE_VERIFICATION_REASONS)[number];

/** The outcome of {@link verifySignedNote}. */
export type NoteVerification =
  | {
      valid: true;
      note: SignedNote;
      /** The signatures of trusted keys, each key once, in note order. */
      verified: NoteSignature[];
      /** The signatures of keys not trusted, ignored as the format requires. */
      unverified: NoteSignature[];
    }
  | { valid: false; reason: NoteVerificationReason; detail: string };

/**
 * Parses a note and checks its signatures against trusted keys, as C2SP `signed-note` requires:
 * signatures of unknown keys are ignored, a signature of a trusted key that fails rejects the
 * whole note, and a note with no trusted signature is rejected. Never throws.
 *
 * @example
 * ```ts
 * import { ed25519NoteVerifier, verifySignedNote } from '@authority-runtime/sdk';
 *
 * const outcome = verifySignedNote(text, [ed25519NoteVerifier(pinnedLogKey)]);
 * if (!outcome.valid) throw new Error(outcome.detail);
 * ```
 */
export function verifySignedNote(
  note: string | Uint8Array,
  verifiers: readonly NoteVerifier[],
): NoteVerification {
  let parsed: SignedNote;
  try {
    parsed = parseSignedNote(note);
  } catch (error) {
    return { valid: false, reason: 'NOTE_MALFORMED', detail: (error as Error).message };
  }
  const verified: NoteSignature[] = [];
  const unverified: NoteSignature[] = [];
  for (const signature of parsed.signatures) {
    const keys = verifiers.filter((v) => v.name === signature.name && v.keyId === signature.keyId);
    if (keys.length === 0) {
      unverified.push(signature);
      continue;
    }
    if (!keys.some((key) => key.verify(parsed.text, signature.signature))) {
      const id = `${signature.name}+${formatKeyId(signature.keyId)}`;
      return { valid: false, reason: 'SIGNATURE_INVALID', detail: `the signature of ${id} does not verify` };
    }
    if (!verified.some((v) => v.name === signature.name && v.keyId === signature.keyId))
      verified.push(signature);
  }
  if (verified.length === 0) {
    return { valid: false, reason: 'NO_TRUSTED_SIGNATURE', detail: 'no signature of a trusted key' };
  }
  return { valid: true, note: parsed, verified, unverified };
}
