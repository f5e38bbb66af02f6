// Test-only note keys of the shared vectors and a signer of C2SP signed notes written from the
// specifications (signed-note, tlog-checkpoint, tlog-cosignature) with node:crypto directly, so that
// the receipt vectors share nothing with src/transparency. Seeds are SHA-256 of a label, the same
// derivation as transparency-vectors.ts, so the log key of tenant acme is the same in both files.
// Never trust these keys anywhere else.
import { createHash, createPrivateKey, createPublicKey, type KeyObject, sign } from 'node:crypto';

/** 0x01: an Ed25519 log key; 0x04: a witness's cosignature/v1 key. */
export type NoteKeyType = 0x01 | 0x04;

export interface TestNoteKey {
  name: string;
  type: NoteKeyType;
  privateKey: KeyObject;
  keyId: Buffer;
  /** `<name>+<key ID as 8 hex digits>+<base64(type ‖ public key)>`. */
  verifierKey: string;
}

/** The PKCS #8 prefix of a raw 32-byte Ed25519 seed (RFC 8410). */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export function testNoteKey(name: string, label: string, type: NoteKeyType): TestNoteKey {
  const seed = createHash('sha256').update(`authority-runtime test vector key: ${label}`).digest();
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const publicKey = createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(-32);
  const keyId = createHash('sha256')
    .update(Buffer.concat([Buffer.from(name, 'utf8'), Buffer.from([0x0a, type]), publicKey]))
    .digest()
    .subarray(0, 4);
  const verifierKey = `${name}+${keyId.toString('hex')}+${Buffer.concat([Buffer.from([type]), publicKey]).toString('base64')}`;
  return { name, type, privateKey, keyId, verifierKey };
}

/** A checkpoint body: origin, size and base64 root hash, each line ending in a newline. */
export function checkpointBody(origin: string, size: number, rootHash: Uint8Array): string {
  return `${origin}\n${size}\n${Buffer.from(rootHash).toString('base64')}\n`;
}

/**
 * One signature line `— <name> <base64(key ID ‖ signature)>\n`: a log key signs the body; a
 * cosignature/v1 key signs `cosignature/v1\ntime <t>\n` + body and puts the 8-byte time first.
 */
export function signatureLine(key: TestNoteKey, body: string, time = 0): string {
  let data: Buffer;
  if (key.type === 0x01) {
    data = Buffer.concat([key.keyId, sign(null, Buffer.from(body, 'utf8'), key.privateKey)]);
  } else {
    const stamp = Buffer.alloc(8);
    stamp.writeBigUInt64BE(BigInt(time));
    const message = Buffer.from(`cosignature/v1\ntime ${time}\n${body}`, 'utf8');
    data = Buffer.concat([key.keyId, stamp, sign(null, message, key.privateKey)]);
  }
  return `\u2014 ${key.name} ${data.toString('base64')}\n`;
}

/** The signed note: the body, an empty line, then one signature line per key in order. */
export function signedNote(body: string, keys: readonly TestNoteKey[], time = 0): string {
  return `${body}\n${keys.map((key) => signatureLine(key, body, time)).join('')}`;
}
