// The chain, receipts and seals of the receipt vectors (contract §6 and §15): entries hash as
// sha256_hex(JCS(entry without entryHash)); their payloads hold numbers and strings whose canonical
// form is easy to get wrong (exponents, UTF-16 key order, escapes).
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { compact, type Expectation, es256Twins, TENANT, tokenClaims } from './token-vectors.js';
import { signatureTwins, signInput, type VectorKey } from './vector-keys.js';

export const INTENT = '0190f5c2-1111-7000-8000-000000000001';
export const OTHER_INTENT = '0190f5c2-1111-7000-8000-000000000002';
/** Positions of the intent's entries in the chain; 2, 3 and 4 are consecutive, so linked. */
export const INTENT_INDICES = [2, 3, 4, 7, 9];
export const CHAIN_LENGTH = 12;
export const ZEROS = '0'.repeat(64);
export const SEAL_TYP = 'authority-receipt-seal+jws';

export type Entry = Record<string, unknown> & { index: number; entryHash: string; previousHash: string };
export type Json = Record<string, unknown>;

export interface ReceiptVector {
  name: string;
  description: string;
  /** When set, the verifier is told to expect this tenant. */
  expectedTenantId: string | null;
  /** The log verifier key to pass, or `null` to pass none. */
  logKey: string | null;
  receipt: Json;
  expected: Expectation;
}

export function jcs(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new Error('no canonical form');
  return text;
}

export function rehash(entry: Json): Entry {
  const { entryHash: _old, ...rest } = entry;
  return { ...rest, entryHash: createHash('sha256').update(jcs(rest), 'utf8').digest('hex') } as Entry;
}

function timestamp(index: number): string {
  return new Date(Date.UTC(2023, 10, 14, 22, 0, 0, 7) + index * 1_013).toISOString();
}

/** Payloads whose JCS form exercises number formatting, escapes and UTF-16 member order. */
function payloadOf(index: number, ofIntent: boolean): Json {
  const common = {
    n: index,
    ratio: index / 7,
    exponents: [1e21, 1e-7, 123456789012345680000, 5e-324, 1.7976931348623157e308, -1.5, 0.1 + 0.2],
    text: 'café ✓ "quoted" \\ back\u0007bell\u2028line </script>',
    order: { é: 1, '😀': 2, ﬀ: 3, Z: 4, a: 5, '': 6 },
  };
  return ofIntent
    ? { ...common, nonce: `n-${index}`, adapterId: 'github-main', targetSystem: 'acme/api' }
    : { ...common, kid: 'acme-1700000000-EDACTIVE', alg: 'EdDSA', previousKid: null };
}

export function buildChain(): Entry[] {
  const chain: Entry[] = [];
  let previous = ZEROS;
  for (let index = 0; index < CHAIN_LENGTH; index += 1) {
    const ofIntent = INTENT_INDICES.includes(index);
    const entry = rehash({
      index,
      tenantId: TENANT,
      correlationId: `0190f5c2-0000-7000-8000-${String(index).padStart(12, '0')}`,
      intentId: ofIntent ? INTENT : null,
      actorId: ofIntent ? 'agent-7' : 'key_01HX',
      actorType: ofIntent ? 'agent' : 'principal:api-key',
      eventType: ofIntent ? (index === 2 ? 'intent.received' : 'token.consumed') : 'keys.rotated',
      payload: payloadOf(index, ofIntent),
      previousHash: previous,
      createdAt: timestamp(index),
    });
    chain.push(entry);
    previous = entry.entryHash;
  }
  return chain;
}

/** Signs the seal with `sealKey`; with `highS`, with the high-S twin of an ES256 signature. */
export function signSeal(receipt: Json, sealKey: VectorKey, typ = SEAL_TYP, highS = false): Json {
  const { signature: _old, ...fields } = receipt.seal as Json;
  const header = Buffer.from(JSON.stringify({ alg: sealKey.alg, typ, kid: sealKey.kid })).toString(
    'base64url',
  );
  const input = Buffer.from(`${header}.${Buffer.from(jcs(fields), 'utf8').toString('base64url')}`, 'ascii');
  const signature = highS ? signatureTwins(sealKey, input).high : signInput(sealKey, sealKey.alg, input);
  return { ...receipt, seal: { ...fields, signature: `${input}.${signature.toString('base64url')}` } };
}

export interface Spec {
  sealKey: VectorKey;
  tokenKey?: VectorKey;
  /** No token, or an ES256 token (by `tokenKey`) signed with the high-S twin. */
  token?: 'none' | 'high-s';
  decision?: string;
  tokenOverrides?: Json;
  entries?: Entry[];
  headIndex?: number;
  jwks: { keys: unknown[] };
}

export function buildReceipt(chain: Entry[], name: string, spec: Spec): Json {
  const entries = spec.entries ?? chain.filter((entry) => entry.intentId === INTENT);
  const headIndex = spec.headIndex ?? CHAIN_LENGTH - 1;
  const head = chain[headIndex];
  // Issued in 2020 and long expired: receipts are verified after their tokens expire.
  const tokenKey = spec.tokenKey ?? spec.sealKey;
  const claims = tokenClaims(name, { iat: 1_600_000_000, intentId: INTENT, ...spec.tokenOverrides });
  const token =
    spec.token === 'none'
      ? null
      : spec.token === 'high-s'
        ? es256Twins(tokenKey, claims).high
        : compact(tokenKey, claims);
  const unsealed: Json = {
    receiptVersion: 1,
    intentId: INTENT,
    tenantId: TENANT,
    decision: spec.decision ?? 'APPROVED',
    token,
    entries,
    seal: {
      tenantId: TENANT,
      intentId: INTENT,
      entryHashes: entries.map((entry) => entry.entryHash),
      headIndex,
      headHash: head?.entryHash ?? ZEROS,
      issuedAt: '2023-11-14T22:05:00.000Z',
      signature: '',
    },
    jwks: spec.jwks,
  };
  return signSeal(unsealed, spec.sealKey);
}

export function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
