// Receipt vectors (contract §6, receiptVersion 1): receipts as the service issues them and
// receipts tampered in each way a verifier must catch, with the reason it reports. Entries hash as
// sha256_hex(JCS(entry without entryHash)); their payloads hold numbers and strings whose canonical
// form is easy to get wrong (exponents, UTF-16 key order, escapes).
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { compact, type Expectation, es256Twins, TENANT, tokenClaims } from './token-vectors.js';
import { ALGS, type Alg, key, signatureTwins, signInput, type VectorKey } from './vector-keys.js';

const INTENT = '0190f5c2-1111-7000-8000-000000000001';
const OTHER_INTENT = '0190f5c2-1111-7000-8000-000000000002';
/** Positions of the intent's entries in the chain; 2, 3 and 4 are consecutive, so linked. */
const INTENT_INDICES = [2, 3, 4, 7, 9];
const CHAIN_LENGTH = 12;
const ZEROS = '0'.repeat(64);
const SEAL_TYP = 'authority-receipt-seal+jws';

type Entry = Record<string, unknown> & { index: number; entryHash: string; previousHash: string };
type Json = Record<string, unknown>;

export interface ReceiptVector {
  name: string;
  description: string;
  /** When set, the verifier is told to expect this tenant. */
  expectedTenantId: string | null;
  receipt: Json;
  expected: Expectation;
}

function jcs(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new Error('no canonical form');
  return text;
}

function rehash(entry: Json): Entry {
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

function buildChain(): Entry[] {
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
function signSeal(receipt: Json, sealKey: VectorKey, typ = SEAL_TYP, highS = false): Json {
  const { signature: _old, ...fields } = receipt.seal as Json;
  const header = Buffer.from(JSON.stringify({ alg: sealKey.alg, typ, kid: sealKey.kid })).toString(
    'base64url',
  );
  const input = Buffer.from(`${header}.${Buffer.from(jcs(fields), 'utf8').toString('base64url')}`, 'ascii');
  const signature = highS ? signatureTwins(sealKey, input).high : signInput(sealKey, sealKey.alg, input);
  return { ...receipt, seal: { ...fields, signature: `${input}.${signature.toString('base64url')}` } };
}

interface Spec {
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

function buildReceipt(chain: Entry[], name: string, spec: Spec): Json {
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

function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * Every receipt vector and the key set a verifier pins (the tenant's JWKS plus its archive).
 *
 * @example
 * ```ts
 * const { pinnedJwks, vectors } = receiptVectors(loadVectorKeys(file));
 * ```
 */
export function receiptVectors(keys: Record<string, VectorKey>) {
  const VALID: Expectation = { valid: true, reason: null };
  const fails = (reason: string): Expectation => ({ valid: false, reason });
  const active = (alg: Alg) => key(keys, `${alg}/active`);
  const ed = active('EdDSA');
  const current = { keys: ALGS.map((alg) => active(alg).publicJwk) };
  const pinned = { keys: [...current.keys, ...ALGS.map((alg) => key(keys, `${alg}/retired`).publicJwk)] };
  const chain = buildChain();
  const vectors: ReceiptVector[] = [];
  const add = (name: string, description: string, receipt: Json, expected: Expectation, tenant?: string) =>
    vectors.push({ name, description, expectedTenantId: tenant ?? null, receipt, expected });
  const receipt = (name: string, spec: Partial<Spec> = {}) =>
    buildReceipt(chain, name, { sealKey: ed, jwks: current, ...spec });

  for (const alg of ALGS) {
    add(
      `valid-${alg}`,
      `seal and token signed with ${alg}`,
      receipt(`valid-${alg}`, { sealKey: active(alg) }),
      VALID,
    );
  }
  add(
    'valid-denied-no-token',
    'a DENIED intent: no token',
    receipt('denied', { decision: 'DENIED', token: 'none' }),
    VALID,
  );
  add(
    'valid-token-retired-key',
    'the token was signed by a key retired since: the archive is pinned',
    receipt('retired', { tokenKey: key(keys, 'EdDSA/retired') }),
    VALID,
  );
  add(
    'valid-expected-tenant',
    'the expected tenant is the receipt tenant',
    receipt('tenant-ok'),
    VALID,
    TENANT,
  );

  const wrongVersion = { ...receipt('version'), receiptVersion: 3 };
  add('malformed-version', 'receiptVersion 3', wrongVersion, fails('RECEIPT_MALFORMED'));
  add(
    'malformed-unknown-member',
    'an unknown top-level member',
    { ...receipt('unknown'), extra: true },
    fails('RECEIPT_MALFORMED'),
  );
  add(
    'malformed-no-entries',
    'an empty entries list',
    { ...receipt('empty'), entries: [] },
    fails('RECEIPT_MALFORMED'),
  );
  const badTime = clone(receipt('time'));
  (badTime.entries as Json[])[0] = {
    ...(badTime.entries as Json[])[0],
    createdAt: '2023-02-30T00:00:00.000Z',
  };
  add('malformed-created-at', 'an entry created on 30 February', badTime, fails('RECEIPT_MALFORMED'));

  add(
    'tenant-mismatch',
    'a receipt of acme checked as globex',
    receipt('tenant'),
    fails('TENANT_MISMATCH'),
    'globex',
  );

  const tampered = clone(receipt('tampered'));
  ((tampered.entries as Json[])[1]?.payload as Json).nonce = 'n-forged';
  add(
    'entry-tampered',
    "an entry's payload changed, its entryHash kept",
    tampered,
    fails('ENTRY_HASH_MISMATCH'),
  );

  const ofIntent = chain.filter((entry) => entry.intentId === INTENT);
  const relinked = ofIntent.map((entry, position) =>
    position === 0 ? rehash({ ...entry, payload: { forged: true } }) : entry,
  );
  add(
    'entry-rehashed-breaks-link',
    'the first entry rewritten and rehashed: the next entry no longer links to it',
    receipt('relinked', { entries: relinked }),
    fails('ENTRY_MISMATCH'),
  );
  const foreign = ofIntent.map((entry, position) =>
    position === 4 ? rehash({ ...entry, intentId: OTHER_INTENT }) : entry,
  );
  add(
    'entry-other-intent',
    'an entry of another intent',
    receipt('foreign', { entries: foreign }),
    fails('ENTRY_MISMATCH'),
  );

  const lastRewritten = clone(receipt('last'));
  const rewrittenEntries = lastRewritten.entries as Json[];
  rewrittenEntries[4] = rehash({ ...(rewrittenEntries[4] as Json), payload: { forged: true } });
  add(
    'seal-entry-hashes-differ',
    'the last entry rewritten and rehashed, the seal left as it was',
    lastRewritten,
    fails('SEAL_MISMATCH'),
  );
  add(
    'seal-head-before-entry',
    'a correctly signed seal whose head lies before the last entry',
    receipt('head', { headIndex: 8 }),
    fails('SEAL_MISMATCH'),
  );

  const sealTampered = clone(receipt('seal-tampered'));
  (sealTampered.seal as Json).issuedAt = '2023-11-14T22:06:00.000Z';
  add(
    'seal-field-changed',
    'seal.issuedAt changed after signing',
    sealTampered,
    fails('SEAL_SIGNATURE_INVALID'),
  );
  add(
    'seal-unpinned-key',
    'sealed by a key of the tenant that nobody pinned',
    receipt('seal-unpinned', { sealKey: key(keys, 'EdDSA/unpinned'), tokenKey: ed }),
    fails('SEAL_SIGNATURE_INVALID'),
  );
  add(
    'seal-wrong-typ',
    'a seal JWS whose typ is not authority-receipt-seal+jws',
    signSeal(receipt('seal-typ'), ed, 'JWT'),
    fails('SEAL_SIGNATURE_INVALID'),
  );

  add(
    'seal-high-s',
    'an ES256 seal signed with the high-S twin of its signature',
    signSeal(receipt('seal-high-s', { sealKey: active('ES256') }), active('ES256'), SEAL_TYP, true),
    fails('SEAL_SIGNATURE_INVALID'),
  );

  add(
    'token-other-intent',
    'a genuine token of another intent',
    receipt('token-intent', { tokenOverrides: { intentId: OTHER_INTENT } }),
    fails('TOKEN_INVALID'),
  );
  add(
    'token-forged',
    'a token signed under the real kid by another key',
    receipt('token-forged', { tokenKey: key(keys, 'EdDSA/impostor') }),
    fails('TOKEN_INVALID'),
  );
  add(
    'token-high-s',
    'an ES256 token signed with the high-S twin of its signature',
    receipt('token-high-s', { tokenKey: active('ES256'), token: 'high-s' }),
    fails('TOKEN_INVALID'),
  );
  add(
    'token-missing',
    'an APPROVED receipt without a token',
    receipt('no-token', { token: 'none' }),
    fails('TOKEN_INVALID'),
  );
  add(
    'token-on-denied',
    'a DENIED receipt carrying a token',
    receipt('denied-token', { decision: 'DENIED' }),
    fails('TOKEN_INVALID'),
  );

  add(
    'embedded-jwks-unpinned',
    'the embedded key set lists a key the verifier does not pin',
    receipt('embedded', { jwks: { keys: [...current.keys, key(keys, 'EdDSA/unpinned').publicJwk] } }),
    fails('EMBEDDED_JWKS_MISMATCH'),
  );

  return {
    description:
      'Receipts (contract §6, receiptVersion 1). Verify each `receipt` offline against `pinnedJwks` only ' +
      '(the embedded jwks is never trusted), with the expected tenant `expectedTenantId` when not null; the ' +
      'result must be `expected`.',
    pinnedJwks: pinned,
    vectors,
  };
}
