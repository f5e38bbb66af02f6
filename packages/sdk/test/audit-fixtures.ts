// Builders for audit entries, checkpoints and receipts, written from docs/audit-chain.md alone
// (never from the server's code): entryHash = sha256_hex(JCS(entry without entryHash)), statements
// signed as compact JWS over exactly the JCS of their other fields.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { CompactSign, type CryptoKey, exportJWK, generateKeyPair, type JWK } from 'jose';

export type Alg = 'EdDSA' | 'RS256' | 'ES256';

export interface TestKey {
  alg: Alg;
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export const TENANT = 'acme';
export const ZEROS = '0'.repeat(64);

export async function makeKey(alg: Alg, kid: string): Promise<TestKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { alg, kid, privateKey, publicJwk };
}

export function jcs(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new Error('no canonical form');
  return text;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export type Entry = Record<string, unknown> & { index: number; entryHash: string; previousHash: string };

/** Recomputes entryHash from the other members. */
export function rehash(entry: Record<string, unknown>): Entry {
  const { entryHash: _old, ...rest } = entry;
  return { ...rest, entryHash: sha256Hex(jcs(rest)) } as Entry;
}

export function timestamp(index: number): string {
  return new Date(Date.UTC(2026, 10, 22, 3, 31, 22, 768) + index * 1_013).toISOString();
}

/** Entry `index` of the tenant's chain, linked to `previousHash`. */
export function makeEntry(
  index: number,
  previousHash: string,
  overrides: Record<string, unknown> = {},
  tenantId = TENANT,
): Entry {
  return rehash({
    index,
    tenantId,
    correlationId: `0190f5c2-0000-7000-8000-${String(index).padStart(12, '0')}`,
    intentId: null,
    actorId: 'key_01HX',
    actorType: 'principal:api-key',
    eventType: 'keys.rotated',
    payload: {
      kid: `acme-17000000${index % 100}-ABCDEFGH`,
      alg: 'EdDSA',
      source: 'local',
      previousKid: null,
      retiredKid: null,
      n: index,
      ratio: index / 7,
      note: 'café ✓ "quoted"',
    },
    previousHash,
    createdAt: timestamp(index),
    ...overrides,
  });
}

/** The order of the P-256 group. */
const P256_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

/**
 * The same compact JWS with S replaced by n - S when `want` says so: `low` gives the form the
 * service mints (jose signs with either), `high` its twin, which verifiers refuse. Only for ES256.
 */
export function withS(compact: string, want: 'low' | 'high'): string {
  const at = compact.lastIndexOf('.');
  const signature = Buffer.from(compact.slice(at + 1), 'base64url');
  const s = BigInt(`0x${signature.subarray(32).toString('hex')}`);
  if (s <= P256_ORDER >> 1n === (want === 'low')) return compact;
  const flipped = Buffer.from((P256_ORDER - s).toString(16).padStart(64, '0'), 'hex');
  return `${compact.slice(0, at)}.${Buffer.concat([signature.subarray(0, 32), flipped]).toString('base64url')}`;
}

/** A JWS as the service writes it: ES256 signatures in low-S form. */
export function asMinted(compact: string, alg: string): string {
  return alg === 'ES256' ? withS(compact, 'low') : compact;
}

/** A compact JWS over exactly `payload`, header {alg, typ, kid}. */
export async function signText(key: TestKey, payload: string, typ: string, kid = key.kid): Promise<string> {
  const jws = await new CompactSign(new TextEncoder().encode(payload))
    .setProtectedHeader({ alg: key.alg, typ, kid })
    .sign(key.privateKey);
  return asMinted(jws, key.alg);
}

export interface CheckpointFields {
  tenantId: string;
  index: number;
  entryHash: string;
  issuedAt: string;
}

export async function makeCheckpoint(key: TestKey, entry: Entry, tenantId = TENANT) {
  const fields: CheckpointFields = {
    tenantId,
    index: entry.index,
    entryHash: entry.entryHash,
    issuedAt: timestamp(entry.index + 1),
  };
  return { ...fields, kid: key.kid, signature: await signText(key, jcs(fields), 'authority-checkpoint+jws') };
}

/** Base64url-alphabet replacement for the character at `position`, always different. */
export function flipChar(text: string, position: number): string {
  const current = text[position];
  const replacement = current === 'A' ? 'B' : 'A';
  return text.slice(0, position) + replacement + text.slice(position + 1);
}

/** Changes one hex digit of a hash. */
export function flipHex(hash: string, position = 0): string {
  const current = hash[position];
  return hash.slice(0, position) + (current === '0' ? '1' : '0') + hash.slice(position + 1);
}
