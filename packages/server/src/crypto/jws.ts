import type { KeyObject } from 'node:crypto';
import { type SigningAlg, verifyJwsInput } from './signing-algorithms.js';

/** Something that signs JWS signing input with the tenant's ACTIVE key (local or external). */
export interface JwsSigner {
  kid: string;
  alg: SigningAlg;
  sign(input: Buffer): Promise<Buffer>;
}

/** A compact JWS over a payload text (already serialized: JSON or canonical JSON). */
export async function signCompact(signer: JwsSigner, payloadText: string, typ = 'JWT'): Promise<string> {
  const header = Buffer.from(JSON.stringify({ alg: signer.alg, typ, kid: signer.kid })).toString('base64url');
  const payload = Buffer.from(payloadText, 'utf8').toString('base64url');
  const input = `${header}.${payload}`;
  const signature = await signer.sign(Buffer.from(input, 'ascii'));
  return `${input}.${signature.toString('base64url')}`;
}

export interface ParsedJws {
  header: { alg?: unknown; kid?: unknown; typ?: unknown };
  payloadText: string;
  input: Buffer;
  signature: Buffer;
}

/** Splits a compact JWS; undefined when it is not one. Does not verify anything. */
export function parseCompact(jws: string): ParsedJws | undefined {
  const parts = jws.split('.');
  if (parts.length !== 3) return undefined;
  const [header, payload, signature] = parts as [string, string, string];
  try {
    return {
      header: JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as ParsedJws['header'],
      payloadText: Buffer.from(payload, 'base64url').toString('utf8'),
      input: Buffer.from(`${header}.${payload}`, 'ascii'),
      signature: Buffer.from(signature, 'base64url'),
    };
  } catch {
    return undefined;
  }
}

/** Verifies a parsed JWS with a known key whose algorithm is fixed (the header's alg must agree). */
export function verifyParsed(parsed: ParsedJws, alg: SigningAlg, key: KeyObject): boolean {
  return parsed.header.alg === alg && verifyJwsInput(alg, key, parsed.input, parsed.signature);
}
